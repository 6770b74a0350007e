package engine

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Source error policies (WITH on_error = ...).
const (
	onErrorFail       = "fail"
	onErrorSkip       = "skip"
	onErrorDeadLetter = "dead_letter"
)

// deadLetterSchema is the schema of every dead-letter table. A record is
// identified by (source, partition, offset), so two views reading the same
// source, or a replay after a crash, write it once.
var deadLetterSchema = types.Schema{
	{Name: "source", Type: types.String},
	{Name: "partition", Type: types.Int},
	{Name: "offset", Type: types.Int},
	{Name: "raw", Type: types.String},
	{Name: "error", Type: types.String},
	{Name: "time", Type: types.Timestamp},
}

// deadLetterKey is the key of deadLetterSchema.
var deadLetterKey = []int{0, 1, 2}

// onErrorPolicy returns a source's on_error option, validated.
func onErrorPolicy(o *catalog.Object) (string, error) {
	switch p := o.OnError(); p {
	case onErrorFail, onErrorSkip, onErrorDeadLetter:
		return p, nil
	}
	return "", sqlerr.New(sqlerr.InvalidParameter, "on_error must be fail, skip or dead_letter, got %q", o.Options["on_error"])
}

// deadLetters is the contents of one dead-letter table: poison records by
// (source, partition, offset). New rows are written with the next
// checkpoint, together with the source offsets that skipped them, so a
// replay neither loses nor repeats one.
//
// State: every row stays in memory as well as in Badger under
// dl/<table>/; the table grows with the poison records it receives (it is
// an ordinary table: users delete from the destination they sink it to).
type deadLetters struct {
	name  string
	rows  map[string]types.Row
	dirty []string
}

func newDeadLetters(name string) *deadLetters {
	return &deadLetters{name: name, rows: map[string]types.Row{}}
}

func (d *deadLetters) prefix() string { return "dl/" + strings.ToLower(d.name) + "/" }

// add records one poison record of source at ingestion time now.
func (d *deadLetters) add(source string, e connectors.DecodeError, now int64) {
	msg := "undecodable record"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	row := types.Row{types.StringValue(source), types.IntValue(int64(e.Partition)), types.IntValue(e.Offset),
		types.StringValue(rawText(e.Raw)), types.StringValue(msg), types.TimestampValue(now)}
	k := string(state.AppendRow(nil, row[:3]))
	if _, ok := d.rows[k]; ok {
		return
	}
	d.rows[k] = row
	d.dirty = append(d.dirty, k)
}

// rawText keeps valid UTF-8 as it is and escapes other bytes as \xNN, so
// the raw column is text every client can read and the bytes can be
// recovered.
func rawText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&s, `\x%02x`, b[0])
		} else {
			s.Write(b[:n])
		}
		b = b[n:]
	}
	return s.String()
}

// Rows returns the table in key order.
func (d *deadLetters) Rows() []types.Row { return inKeyOrder(d.rows) }

// inKeyOrder lists rows by their encoded key, which orders them by key.
func inKeyOrder(rows map[string]types.Row) []types.Row {
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]types.Row, len(keys))
	for i, k := range keys {
		out[i] = rows[k]
	}
	return out
}

func (d *deadLetters) checkpoint(w *state.Writer) error {
	for _, k := range d.dirty {
		if err := w.Set([]byte(d.prefix()+k), state.EncodeValue(d.rows[k])); err != nil {
			return err
		}
	}
	d.dirty = d.dirty[:0]
	return nil
}

func (d *deadLetters) restore(st *state.Store) error {
	p := d.prefix()
	return st.Scan([]byte(p), func(k, v []byte) error {
		rows, err := state.DecodeValue(v)
		if err != nil || len(rows) != 1 {
			return fmt.Errorf("restore dead letters %s: bad row: %v", d.name, err)
		}
		d.rows[string(k[len(p):])] = rows[0]
		return nil
	})
}

// ensureDeadLetterTable adds the dead-letter table of source o to the
// catalog unless it exists; an existing table must be a dead-letter table.
func (e *Engine) ensureDeadLetterTable(o *catalog.Object) error {
	name := o.DeadLetterTable()
	if t, ok := e.cat.Get(name); ok {
		if t.DeadLetter {
			return nil
		}
		return sqlerr.New(sqlerr.DuplicateObject, "dead_letter table %q is already a %s", name, t.Kind)
	}
	return e.cat.Add(&catalog.Object{Kind: catalog.Table, Name: name, Schema: deadLetterSchema, Key: deadLetterKey, TimeCol: -1, DeadLetter: true})
}

// deadLetterTable returns the runtime of a dead-letter table, creating it.
func (e *Engine) deadLetterTable(name string) *deadLetters {
	k := strings.ToLower(name)
	d := e.dlq[k]
	if d == nil {
		d = newDeadLetters(name)
		e.dlq[k] = d
	}
	return d
}

// poison applies source o's on_error policy to a batch's undecodable
// records.
func (e *Engine) poison(r *reader, errs []connectors.DecodeError, now int64) error {
	if len(errs) == 0 {
		return nil
	}
	e.decodeErrs.Add(int64(len(errs)))
	switch r.onError {
	case onErrorSkip:
		return nil
	case onErrorDeadLetter:
		d := e.deadLetterTable(r.obj.DeadLetterTable())
		for _, de := range errs {
			d.add(r.obj.Name, de, now)
		}
		return nil
	}
	de := errs[0]
	return &sqlerr.Error{Code: sqlerr.DataException,
		Msg:  fmt.Sprintf("source %s: undecodable record at partition %d offset %d", r.obj.Name, de.Partition, de.Offset),
		Hint: "set on_error = 'skip' or 'dead_letter' on the source to keep going", Err: de.Err}
}
