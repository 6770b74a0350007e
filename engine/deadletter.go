package engine

import (
	"fmt"
	"github.com/streamsql/streamsql/exec"
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
	onErrorFail       = exec.OnErrorFail
	onErrorSkip       = exec.OnErrorSkip
	onErrorDeadLetter = exec.OnErrorDeadLetter
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
// State: the rows live in Badger under dl/<table>/; memory holds only
// the records that arrived since the last checkpoint, so it is bounded by
// the poison rate times the checkpoint interval, however long the table
// grows (it is an ordinary table: users delete from the destination they
// sink it to).
type deadLetters struct {
	name    string
	store   *state.Store
	pending map[string]types.Row // by encoded key, since the last checkpoint
	// sinks read the table (CREATE SINK ... FROM it): each new row as an
	// insert keyed by (source, partition, offset), when it is added. A
	// replayed record is new again only if the checkpoint that would have
	// held it was not stored, and then so were the sinks' changes.
	sinks exec.Sinks
}

func newDeadLetters(name string, store *state.Store) *deadLetters {
	return &deadLetters{name: name, store: store, pending: map[string]types.Row{}}
}

func (d *deadLetters) prefix() string { return "dl/" + strings.ToLower(d.name) + "/" }

// addAll records poison records of source at ingestion time now and
// writes the new ones to the table's sinks.
func (d *deadLetters) addAll(source string, errs []connectors.DecodeError, now int64) error {
	var added []connectors.Change
	for _, de := range errs {
		row, err := d.add(source, de, now)
		if err != nil {
			return err
		}
		if row != nil && d.sinks.Len() > 0 {
			added = append(added, connectors.Change{Op: connectors.Upsert, Row: row})
		}
	}
	if len(added) == 0 {
		return nil
	}
	if err := d.sinks.Write(added, false); err != nil {
		return fmt.Errorf("dead_letter table %s: %w", d.name, err)
	}
	return nil
}

// add records one poison record of source at ingestion time now and
// returns its row, unless the table already holds it (a replay, or
// another view of the source): then the row is nil.
func (d *deadLetters) add(source string, e connectors.DecodeError, now int64) (types.Row, error) {
	msg := "undecodable record"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	row := types.Row{types.StringValue(source), types.IntValue(int64(e.Partition)), types.IntValue(e.Offset),
		types.StringValue(rawText(e.Raw)), types.StringValue(msg), types.TimestampValue(now)}
	k := string(state.AppendRow(nil, row[:3]))
	if _, ok := d.pending[k]; ok {
		return nil, nil
	}
	if _, ok, err := d.store.Get([]byte(d.prefix() + k)); err != nil || ok {
		if err != nil {
			return nil, fmt.Errorf("dead_letter table %s: %w", d.name, err)
		}
		return nil, nil
	}
	d.pending[k] = row
	return row, nil
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

// Rows returns the table in key order: the checkpointed rows from
// Badger and the ones since.
func (d *deadLetters) Rows() ([]types.Row, error) { return d.prefixRows(nil) }

// prefixRows returns the rows whose leading key columns (source,
// partition, offset) are eq, in Rows's order: a row's stored key is its
// key columns' encoding, so equal leading values are a common prefix.
func (d *deadLetters) prefixRows(eq []types.Value) ([]types.Row, error) {
	rows := make(map[string]types.Row, len(d.pending))
	p := d.prefix()
	kp := state.AppendRowPrefix(nil, len(deadLetterKey), eq...)
	err := d.store.Scan(append([]byte(p), kp...), func(k, v []byte) error {
		r, err := state.DecodeValue(v)
		if err != nil || len(r) != 1 {
			return fmt.Errorf("dead_letter table %s: bad row: %v", d.name, err)
		}
		rows[string(k[len(p):])] = r[0]
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k, r := range d.pending {
		if strings.HasPrefix(k, string(kp)) {
			rows[k] = r
		}
	}
	return inKeyOrder(rows), nil
}

// get returns the row whose (source, partition, offset) is key, or none:
// a record since the last checkpoint from memory, an older one from
// Badger.
func (d *deadLetters) get(key types.Row) ([]types.Row, error) {
	k := string(state.AppendRow(nil, key))
	if r, ok := d.pending[k]; ok {
		return []types.Row{r}, nil
	}
	v, ok, err := d.store.Get([]byte(d.prefix() + k))
	if err != nil || !ok {
		if err != nil {
			return nil, fmt.Errorf("dead_letter table %s: %w", d.name, err)
		}
		return nil, nil
	}
	rows, err := state.DecodeValue(v)
	if err != nil || len(rows) != 1 {
		return nil, fmt.Errorf("dead_letter table %s: bad row: %v", d.name, err)
	}
	return rows, nil
}

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

// checkpoint writes the rows since the last checkpoint; they leave
// memory once the checkpoint is stored (checkpointed).
func (d *deadLetters) checkpoint(w *state.Writer) error {
	for k, r := range d.pending {
		if err := w.Set([]byte(d.prefix()+k), state.EncodeValue(r)); err != nil {
			return err
		}
	}
	return nil
}

// checkpointed forgets the rows the stored checkpoint holds.
func (d *deadLetters) checkpointed() { clear(d.pending) }

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
		d = newDeadLetters(name, e.store)
		e.dlq[k] = d
	}
	return d
}
