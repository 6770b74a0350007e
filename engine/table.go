package engine

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/exec"
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// tableRT is a running TABLE: a keyed, updatable relation. A memory table
// takes INSERTs (an existing key is replaced) that are durable when
// acknowledged; a connector table (an upsert topic, change events) applies
// its source's upserts and deletes by primary key, and checkpoints its
// contents with the source position so a replay converges.
//
// State: one row per live key, in memory and under t/<table>/ in Badger.
type tableRT struct {
	obj   *catalog.Object
	rd    *exec.Source // nil for memory tables
	rows  map[string]types.Row
	index *keyIndex       // rows in key order
	dirty map[string]bool // keys changed since the last checkpoint (deleted keys too)
	// sinks read the table's changes (CREATE SINK ... FROM table): every
	// upsert and delete by key as it is applied.
	sinks exec.Sinks
	err   error // the first sink Write error; the table's reading stops
	// feeds carry the table's changes into the views reading it
	// (table_feed.go); seq numbers a memory table's changes, and pending
	// are the logged ones the next checkpoint drops.
	feeds   []*tableFeed
	seq     uint64
	pending []uint64
	store   *state.Store
}

func (t *tableRT) prefix() string { return "t/" + strings.ToLower(t.obj.Name) + "/" }

func (t *tableRT) key(row types.Row) string {
	var kb []byte
	for _, k := range t.obj.Key {
		kb = state.AppendKey(kb, row[k])
	}
	return string(kb)
}

// get returns the row whose key columns are key (values of the key
// columns' kinds), or none.
func (t *tableRT) get(key types.Row) []types.Row {
	var kb []byte
	for _, v := range key {
		kb = state.AppendKey(kb, v)
	}
	if r, ok := t.rows[string(kb)]; ok {
		return []types.Row{r}
	}
	return nil
}

// storedTableGet reads the row of TABLE name whose key columns are key
// from the store (a read-only engine's), or none.
func storedTableGet(st *state.Store, name string, key types.Row) ([]types.Row, error) {
	kb := []byte("t/" + strings.ToLower(name) + "/row/")
	for _, v := range key {
		kb = state.AppendKey(kb, v)
	}
	v, ok, err := st.Get(kb)
	if err != nil || !ok {
		return nil, err
	}
	rows, err := state.DecodeValue(v)
	if err != nil || len(rows) != 1 {
		return nil, fmt.Errorf("table %s: bad row: %v", name, err)
	}
	return rows, nil
}

// apply upserts or deletes rows by key (a connector's batch), and hands
// the changes to the table's sinks and, in order, to its views (an
// upsert of a present key deletes the old row first).
func (t *tableRT) apply(rows []types.Row, ops []connectors.Op) {
	var changes []connectors.Change
	var out []types.Row
	var diffs []int8
	for i, r := range rows {
		k := t.key(r)
		op := connectors.Upsert
		old, had := t.rows[k]
		if had {
			out, diffs = append(out, old), append(diffs, -1)
		}
		if i < len(ops) && ops[i] == connectors.Delete {
			if !had {
				t.dirty[k] = true
				continue // nothing to delete: the sinks never saw the key
			}
			delete(t.rows, k)
			t.index.remove(old)
			op = connectors.Delete
		} else {
			t.rows[k] = r
			t.index.put(r)
			out, diffs = append(out, r), append(diffs, 1)
		}
		t.dirty[k] = true
		if t.sinks.Len() > 0 {
			changes = append(changes, connectors.Change{Op: op, Row: r})
		}
	}
	t.deliver(changes)
	for _, f := range t.feeds {
		f.pushDiffs(out, diffs)
	}
}

// deliver writes changes to the table's sinks; the first error stops the
// table's reading.
func (t *tableRT) deliver(changes []connectors.Change) {
	if len(changes) == 0 {
		return
	}
	if err := t.sinks.Write(changes, false); err != nil && t.err == nil {
		t.err = err
	}
}

// close closes the table's source and sinks.
func (t *tableRT) close() {
	if t.rd != nil {
		_ = t.rd.Close()
	}
	t.sinks.Close()
}

// connectTableSink builds sink o and adds it to sinks, those of TABLE t
// or of dead-letter table t: it gets the table's changes from now on, by
// the table's primary key. A dead-letter table only ever inserts.
func (e *Engine) connectTableSink(sinks *exec.Sinks, t *catalog.Object, o *catalog.Object) error {
	var names []string
	for _, k := range t.Key {
		names = append(names, t.Schema[k].Name)
	}
	key := strings.Join(names, ", ")
	if pk := strings.TrimSpace(o.Options["primary_key"]); pk != "" {
		key = pk
	}
	s, err := e.buildSink(o, t.DeadLetter, key, false)
	if err != nil {
		return err
	}
	sinks.Add(s)
	return nil
}

// Rows returns the table's contents in key order.
func (t *tableRT) Rows() []types.Row { return t.index.rows() }

func (t *tableRT) checkpoint(w *state.Writer) error {
	for k := range t.dirty {
		key := []byte(t.prefix() + "row/" + k)
		var err error
		if r, ok := t.rows[k]; ok {
			err = w.Set(key, state.EncodeValue(r))
		} else {
			err = w.Delete(key)
		}
		if err != nil {
			return err
		}
	}
	clear(t.dirty)
	if t.rd != nil {
		return w.Set([]byte(t.prefix()+"reader"), t.rd.Encode())
	}
	return t.checkpointLog(w)
}

func (t *tableRT) restore(ctx context.Context, st *state.Store) error {
	p := t.prefix() + "row/"
	err := st.Scan([]byte(p), func(k, v []byte) error {
		rows, err := state.DecodeValue(v)
		if err != nil || len(rows) != 1 {
			return fmt.Errorf("restore table %s: bad row: %v", t.obj.Name, err)
		}
		t.rows[string(k[len(p):])] = rows[0]
		t.index.put(rows[0])
		return nil
	})
	if err != nil {
		return err
	}
	if t.rd == nil {
		return t.restoreLog(st)
	}
	return t.rd.Restore(ctx, st, []byte(t.prefix()+"reader"))
}

// startTable builds the runtime of TABLE o.
func (e *Engine) startTable(ctx context.Context, o *catalog.Object) (*tableRT, error) {
	t := &tableRT{obj: o, rows: map[string]types.Row{}, index: newKeyIndex(o.Key), dirty: map[string]bool{}, store: e.store}
	if !logged(o) {
		r, err := e.newReader(ctx, o)
		if err != nil {
			return nil, err
		}
		t.rd = r
	}
	e.tables[strings.ToLower(o.Name)] = t
	return t, nil
}

// stepTable reads one batch into a connector table.
func (e *Engine) stepTable(ctx context.Context, t *tableRT, max int) (bool, error) {
	if t.rd == nil {
		return false, nil
	}
	progressed, err := t.rd.Pull(ctx, max, func(b connectors.Batch, rows []types.Row) error {
		t.apply(rows, b.Ops)
		return nil
	})
	if err == nil && t.err != nil {
		err = t.err
	}
	return progressed, err
}

// insertTable upserts INSERTed rows into a memory table, durably before
// the INSERT is acknowledged.
func (e *Engine) insertTable(t *tableRT, rows []types.Row) error {
	if err := t.checkKeys(rows); err != nil {
		return err
	}
	edits := make([]tableEdit, len(rows))
	for i, r := range rows {
		edits[i] = tableEdit{key: t.key(r), row: r}
	}
	return e.writeTable(t, edits)
}

// checkKeys refuses rows with a NULL key column.
func (t *tableRT) checkKeys(rows []types.Row) error {
	for _, r := range rows {
		for _, k := range t.obj.Key {
			if r[k].IsNull() {
				return sqlerr.New(sqlerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", t.obj.Schema[k].Name, t.obj.Name)
			}
		}
	}
	return nil
}

// tableEdit is one step of a DML statement on a memory table: the row
// of key becomes row (nil: the key is deleted).
type tableEdit struct {
	key string
	row types.Row
}

// writeTable applies a statement's edits to a memory table: its net
// change per key (the row before the statement, the row after) is stored
// with a log entry for the views reading the table in one durable write,
// then applied, delivered to the table's sinks (upserts and deletes by
// key) and fed to its views (the old rows retracted, the new inserted).
func (e *Engine) writeTable(t *tableRT, edits []tableEdit) error {
	var keys []string
	before, after := map[string]types.Row{}, map[string]types.Row{}
	for _, ed := range edits {
		if _, seen := after[ed.key]; !seen {
			keys = append(keys, ed.key)
			before[ed.key] = t.rows[ed.key]
		}
		after[ed.key] = ed.row
	}
	var dels, ins []types.Row
	for _, k := range keys {
		if before[k] != nil {
			dels = append(dels, before[k])
		}
		if after[k] != nil {
			ins = append(ins, after[k])
		}
	}
	seq := t.seq + 1
	logged := len(t.feeds) > 0 && len(dels)+len(ins) > 0
	err := e.store.Update(func(w *state.Writer) error {
		for _, k := range keys {
			var err error
			if r := after[k]; r != nil {
				err = w.Set([]byte(t.prefix()+"row/"+k), state.EncodeValue(r))
			} else if before[k] != nil {
				err = w.Delete([]byte(t.prefix() + "row/" + k))
			}
			if err != nil {
				return err
			}
		}
		if logged {
			return w.Set(t.logKey(seq), encodeTableChange(dels, ins))
		}
		return nil
	})
	if err != nil {
		return err
	}
	t.seq = seq
	if logged {
		t.pending = append(t.pending, seq)
	}
	var changes []connectors.Change
	for _, k := range keys {
		old, r := before[k], after[k]
		switch {
		case r != nil:
			t.rows[k] = r
			t.index.put(r)
			changes = append(changes, connectors.Change{Op: connectors.Upsert, Row: r})
		case old != nil:
			delete(t.rows, k)
			t.index.remove(old)
			changes = append(changes, connectors.Change{Op: connectors.Delete, Row: old})
		}
	}
	if t.sinks.Len() > 0 {
		t.deliver(changes)
	}
	for _, f := range t.feeds {
		f.push(dels, ins)
		f.seq = seq
	}
	for _, f := range t.feeds {
		if f.to.err != nil {
			return f.to.err
		}
	}
	return t.err
}
