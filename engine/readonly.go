package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// A read-only engine (Options.ReadOnly) answers queries from the last
// checkpoint of a stopped pipeline's state, the way one reads a
// savepoint: it opens the store read-only, loads the catalog and reads
// the stored rows of views, side tables, TABLEs and dead-letter tables.
// It starts no source, operator or sink and replays nothing, so it costs
// what the query reads, not what a restore costs; rows INSERTed into a
// memory source after the last checkpoint are not in its answers (a
// restart would replay them), and Notices says how many there are.

// codeReadOnly is read_only_sql_transaction.
const codeReadOnly = "25006"

// openReadOnlyStore opens the store in dir read-only. A store its last
// writer did not close (a crash) must first be recovered at the storage
// level, as every restart does: Badger replays its write-ahead log and a
// committed checkpoint's staged changes are applied. That writes, so it
// is reported in *repaired, and the store is then opened for writing
// only to read it (state.ForReading): Badger replays its log, runs no
// compactions (which its Close would wait for), and the staged changes
// are merged into reads without being applied (the next opener for
// writing applies them), so the answer waits for Badger's replay only,
// not for an apply, a compaction, a clean close and a second open.
func openReadOnlyStore(dir string, repaired *bool) (*state.Store, error) {
	st, err := state.OpenReadOnly(dir)
	if !errors.Is(err, state.ErrNotClean) {
		return st, err
	}
	*repaired = true
	return state.Open(dir, state.ForReading())
}

// loadMeta loads the catalog, the last checkpoint's id and the last
// memory-log sequence number.
func (e *Engine) loadMeta() error {
	if b, ok, err := e.store.Get(keyCatalog); err != nil {
		return err
	} else if ok {
		if err := e.cat.Decode(b); err != nil {
			return err
		}
		for _, o := range e.cat.List(0) {
			e.markTyped(o)
		}
	}
	if b, ok, err := e.store.Get(keyCkpt); err != nil {
		return err
	} else if ok && len(b) == 8 {
		e.ckpt = binary.BigEndian.Uint64(b)
	}
	last, err := e.store.LastKey(prefixLog)
	if err != nil {
		return err
	}
	if last != nil {
		e.logSeq = binary.BigEndian.Uint64(last[len(prefixLog):])
	}
	return nil
}

// readOnlyStmt refuses, on a read-only engine, a statement that would
// change the state.
func (e *Engine) readOnlyStmt(s parser.Stmt) error {
	if !e.opts.ReadOnly {
		return nil
	}
	switch s.(type) {
	case *parser.QueryStmt, *parser.ShowStmt, *parser.DescribeStmt, *parser.ExplainStmt:
		return nil
	}
	return sqlerr.New(codeReadOnly, "the state is open read-only: only SELECT, SHOW, DESCRIBE and EXPLAIN run")
}

// storedSnapshot returns the rows the last checkpoint holds for o.
func (e *Engine) storedSnapshot(o *catalog.Object) ([]types.Row, error) {
	switch {
	case o.Kind == catalog.View:
		return exec.StoredRows(e.store, exec.ViewStoreID(o.Name))
	case o.SideOf != "":
		return exec.StoredRows(e.store, exec.SideStoreID(e.viewName(o.SideOf)))
	case o.DeadLetter:
		return newDeadLetters(o.Name, e.store).Rows()
	case o.Kind == catalog.Table:
		return storedTableRows(e.store, o.Name)
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupport, "%s %q cannot be queried yet", o.Kind, o.Name)
}

// viewName is the catalog's spelling of view name, which its store keys
// use.
func (e *Engine) viewName(name string) string {
	if o, ok := e.cat.Get(name); ok {
		return o.Name
	}
	return name
}

// storedTableRows reads TABLE name's rows from the store, in key order.
func storedTableRows(st *state.Store, name string) ([]types.Row, error) {
	return storedTablePrefix(st, name, nil)
}

// storedTablePrefix reads the rows of TABLE name whose leading key
// columns are eq from the store, in storedTableRows's order: the stored
// keys are the key values' encodings one after another, so equal leading
// values are a common prefix (floats and decimals in their key form).
func storedTablePrefix(st *state.Store, name string, eq []types.Value) ([]types.Row, error) {
	p := []byte("t/" + strings.ToLower(name) + "/row/")
	for _, v := range eq {
		p = state.AppendKey(p, v)
	}
	var out []types.Row
	err := st.Scan(p, func(_, v []byte) error {
		rows, err := state.DecodeValue(v)
		if err != nil || len(rows) != 1 {
			return fmt.Errorf("table %s: bad row: %v", name, err)
		}
		out = append(out, rows[0])
		return nil
	})
	return out, err
}

// Repaired reports whether opening a read-only engine first recovered
// the store of a process that did not close it (and so wrote to it).
func (e *Engine) Repaired() bool { return e.repaired }

// Notices returns what a read-only engine's answers leave out: per view,
// the rows INSERTed into its memory sources after the last checkpoint
// (nil for an engine that is not read-only).
func (e *Engine) Notices() ([]string, error) {
	if !e.opts.ReadOnly {
		return nil, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, o := range e.cat.List(catalog.View) {
		n, err := e.unprocessedRows(o)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("view %s: %d rows INSERTed after the last checkpoint (%d) are not in it; a restart (streamsql run) processes them", o.Name, n, e.ckpt))
		}
	}
	return out, nil
}

// unprocessedRows counts the memory-log rows of view o's memory sources
// after the positions its last checkpoint stored.
func (e *Engine) unprocessedRows(o *catalog.Object) (int, error) {
	srcs, err := e.viewSources(o)
	if err != nil {
		return 0, err
	}
	consumed := map[string][]int64{} // memory source (lower case) → last sequence consumed per partition
	for _, name := range srcs {
		src, ok := e.cat.Get(name)
		if !ok || !logged(src) {
			continue
		}
		b, ok, err := e.store.Get([]byte("v/" + o.Name + "/reader/" + strings.ToLower(src.Name)))
		if err != nil {
			return 0, err
		}
		consumed[strings.ToLower(src.Name)] = []int64{0}
		if ok {
			rows, err := state.DecodeValue(b)
			if err != nil {
				return 0, fmt.Errorf("view %s: reader %s: %w", o.Name, src.Name, err)
			}
			offs := []int64{rows[0][0].I} // a checkpoint before memory sources had offsets
			if len(rows[1]) > 0 {
				offs = offs[:0]
				for _, v := range rows[1] {
					offs = append(offs, v.I)
				}
			}
			consumed[strings.ToLower(src.Name)] = offs
		}
	}
	if len(consumed) == 0 {
		return 0, nil
	}
	from := uint64(e.logSeq)
	for _, c := range consumed {
		from = min(from, uint64(slices.Min(c)))
	}
	n := 0
	err = e.store.ScanFrom(prefixLog, logKey(from+1), func(k, val []byte) error {
		rows, err := state.DecodeValue(val)
		if err != nil {
			return err
		}
		c, ok := consumed[strings.ToLower(rows[0][0].S)]
		if !ok {
			return nil
		}
		off := c[0] // one position for all partitions, or one per partition
		if p := int(rows[0][1].I); len(c) > 1 && p < len(c) {
			off = c[p]
		}
		if binary.BigEndian.Uint64(k[len(prefixLog):]) > uint64(off) {
			n += len(rows) - 1
		}
		return nil
	})
	return n, err
}

// viewSources names the sources view o reads, planning it as recovery
// does.
func (e *Engine) viewSources(o *catalog.Object) ([]string, error) {
	stmts, err := parser.Parse(o.SQL)
	if err != nil {
		return nil, fmt.Errorf("view %s: %w", o.Name, err)
	}
	cv, ok := stmts[0].(*parser.CreateViewStmt)
	if !ok {
		return nil, fmt.Errorf("view %s: stored DDL is not CREATE MATERIALIZED VIEW", o.Name)
	}
	vp, err := planner.PlanView(cv, e.resolverExcluding(o.Name, sideTableOf(cv)), planner.Settings{Parallelism: 1, TimeZone: o.TimeZone})
	if err != nil {
		return nil, fmt.Errorf("view %s: %w", o.Name, err)
	}
	var names []string
	planner.Transform(vp.Optimized, func(n planner.Node) (planner.Node, bool) {
		if sc, ok := n.(*planner.Scan); ok {
			names = append(names, sc.Name)
		}
		return n, false
	})
	return names, nil
}
