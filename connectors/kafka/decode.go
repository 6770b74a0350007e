package kafka

import (
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/format"
	"github.com/streamsql/streamsql/types"
	"github.com/valyala/fastjson"
)

// recordDecoder turns one Kafka record (key and value) into a row and its
// op. skip reports a record that carries no row (a Debezium tombstone);
// its offset is still consumed.
type recordDecoder interface {
	decode(key, value []byte) (row types.Row, op connectors.Op, skip bool, err error)
	// table reports whether rows carry ops (the source feeds a TABLE).
	table() bool
}

var errTombstone = errors.New("tombstone (null value) on an append-only source; use format = 'upsert-json' for a keyed topic")

// plainDecoder decodes values with a format decoder; records are inserts.
type plainDecoder struct{ dec format.Decoder }

func (d plainDecoder) decode(_, value []byte) (types.Row, connectors.Op, bool, error) {
	if value == nil {
		return nil, 0, false, errTombstone
	}
	row, err := d.dec.Decode(value)
	return row, connectors.Upsert, false, err
}

func (plainDecoder) table() bool { return false }

// keyDecoder decodes record keys into the key columns of a row.
type keyDecoder struct {
	schema types.Schema
	key    []int // key column positions in schema
	obj    *format.JSONDecoder
	p      fastjson.Parser
}

func newKeyDecoder(schema types.Schema, key []int) *keyDecoder {
	sub := make(types.Schema, len(key))
	for i, k := range key {
		sub[i] = schema[k]
	}
	return &keyDecoder{schema: schema, key: key, obj: format.NewJSONDecoder(sub)}
}

// into writes the key columns held by key into row. A JSON object maps
// by column name; a JSON scalar, or bytes that are not JSON at all (a
// plain string key), is the single key column.
func (d *keyDecoder) into(row types.Row, key []byte) error {
	if key == nil {
		return errors.New("record has no key")
	}
	v, err := d.p.ParseBytes(key)
	if err == nil && v.Type() == fastjson.TypeObject {
		vals, err := d.obj.DecodeValue(v)
		if err != nil {
			return fmt.Errorf("key: %w", err)
		}
		for i, k := range d.key {
			row[k] = vals[i]
		}
		return nil
	}
	if len(d.key) != 1 {
		return fmt.Errorf("key %q is not a JSON object with the %d key columns", key, len(d.key))
	}
	col := d.schema[d.key[0]]
	var val types.Value
	if err == nil {
		val, err = format.JSONValue(col, v)
	} else {
		val, err = format.ParseText(col, key)
	}
	if err != nil {
		return fmt.Errorf("key: %w", err)
	}
	row[d.key[0]] = val
	return nil
}

// fill sets the key columns that row lacks (NULL) from the record key, and
// fails when a key column stays NULL.
func (d *keyDecoder) fill(row types.Row, key []byte) error {
	missing := false
	for _, k := range d.key {
		missing = missing || row[k].IsNull()
	}
	if !missing {
		return nil
	}
	if key != nil {
		tmp := make(types.Row, len(row))
		if err := d.into(tmp, key); err != nil {
			return err
		}
		for _, k := range d.key {
			if row[k].IsNull() {
				row[k] = tmp[k]
			}
		}
	}
	for _, k := range d.key {
		if row[k].IsNull() {
			return fmt.Errorf("key column %s is NULL", d.schema[k].Name)
		}
	}
	return nil
}

// upsertDecoder reads an upsert topic: the key identifies the row, the
// value (a JSON object) is the row, a null value deletes it.
type upsertDecoder struct {
	schema types.Schema
	keys   *keyDecoder
	val    *format.JSONDecoder
}

func (d *upsertDecoder) decode(key, value []byte) (types.Row, connectors.Op, bool, error) {
	if value == nil {
		row := make(types.Row, len(d.schema))
		if err := d.keys.into(row, key); err != nil {
			return nil, 0, false, fmt.Errorf("tombstone: %w", err)
		}
		return row, connectors.Delete, false, nil
	}
	row, err := d.val.Decode(value)
	if err != nil {
		return nil, 0, false, err
	}
	if err := d.keys.fill(row, key); err != nil {
		return nil, 0, false, err
	}
	return row, connectors.Upsert, false, nil
}

func (*upsertDecoder) table() bool { return true }

// debeziumDecoder reads Debezium change events: {"before", "after", "op"},
// optionally wrapped as {"schema": …, "payload": {…}}.
type debeziumDecoder struct {
	schema types.Schema
	keys   *keyDecoder
	val    *format.JSONDecoder
	p      fastjson.Parser
}

func (d *debeziumDecoder) decode(key, value []byte) (types.Row, connectors.Op, bool, error) {
	if value == nil {
		return nil, 0, true, nil // the tombstone Debezium sends after a delete
	}
	v, err := d.p.ParseBytes(value)
	if err != nil {
		return nil, 0, false, err
	}
	if v.Type() != fastjson.TypeObject {
		return nil, 0, false, errors.New("change event is not a JSON object")
	}
	if p := v.Get("payload"); p != nil && p.Type() == fastjson.TypeObject && v.Get("op") == nil {
		v = p
	}
	opv := v.Get("op")
	if opv == nil || opv.Type() != fastjson.TypeString {
		return nil, 0, false, errors.New(`change event has no "op" string`)
	}
	switch op := string(opv.GetStringBytes()); op {
	case "c", "r", "u":
		after := v.Get("after")
		if after == nil || after.Type() != fastjson.TypeObject {
			return nil, 0, false, fmt.Errorf(`change event op %q has no "after" object`, op)
		}
		row, err := d.val.DecodeValue(after)
		if err != nil {
			return nil, 0, false, fmt.Errorf("after: %w", err)
		}
		if err := d.keys.fill(row, debeziumKey(key)); err != nil {
			return nil, 0, false, err
		}
		return row, connectors.Upsert, false, nil
	case "d":
		var row types.Row
		if before := v.Get("before"); before != nil && before.Type() == fastjson.TypeObject {
			if row, err = d.val.DecodeValue(before); err != nil {
				return nil, 0, false, fmt.Errorf("before: %w", err)
			}
		} else {
			row = make(types.Row, len(d.schema))
		}
		if err := d.keys.fill(row, debeziumKey(key)); err != nil {
			return nil, 0, false, err
		}
		return row, connectors.Delete, false, nil
	default:
		return nil, 0, false, fmt.Errorf("change event op %q is not supported (want c, r, u or d)", op)
	}
}

func (*debeziumDecoder) table() bool { return true }

// debeziumKey unwraps a {"schema":…, "payload":{…}} key to its payload.
func debeziumKey(key []byte) []byte {
	if key == nil {
		return nil
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(key)
	if err != nil || v.Type() != fastjson.TypeObject {
		return key
	}
	if pl := v.Get("payload"); pl != nil && v.Get("schema") != nil {
		return pl.MarshalTo(nil)
	}
	return key
}

// newRecordDecoder builds the decoder of the source's format.
func newRecordDecoder(name string, schema types.Schema, tableKey, required []int, opts connectors.Opts) (recordDecoder, error) {
	switch name {
	case formatJSON, formatCSV:
		dec, err := format.NewDecoder(name, schema, opts)
		if err != nil {
			return nil, err
		}
		return plainDecoder{format.Require(dec, schema, required)}, nil
	}
	if len(schema) == 0 {
		return nil, fmt.Errorf("format '%s' needs at least one column", name)
	}
	key := []int{0}
	if len(tableKey) > 0 {
		key = tableKey
	}
	if k := opts.String("key"); k != "" {
		var err error
		if key, err = columnList("key", k, schema.Names()); err != nil {
			return nil, err
		}
	}
	keys := newKeyDecoder(schema, key)
	val := format.NewJSONDecoder(schema)
	if name == formatUpsert {
		return &upsertDecoder{schema: schema, keys: keys, val: val}, nil
	}
	return &debeziumDecoder{schema: schema, keys: keys, val: val}, nil
}
