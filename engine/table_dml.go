package engine

import (
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// dmlTable resolves the target of DELETE or UPDATE (verb): a memory
// TABLE. A connector's table takes its changes from its topic.
func (e *Engine) dmlTable(verb, name string) (*tableRT, error) {
	o, ok := e.cat.Get(name)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", name)
	}
	t := e.tables[strings.ToLower(o.Name)]
	if o.Kind != catalog.Table || t == nil {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "cannot %s %s %q: only TABLEs take %s", verb, o.Kind, o.Name, verb).
			WithHint("a source is append-only; declare a TABLE with a PRIMARY KEY to change rows")
	}
	if t.rd != nil {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "cannot %s table %q: its rows come from its %s connector", verb, o.Name, o.Options["connector"]).
			WithHint("delete or change the row in the topic the table reads (a tombstone or a change event)")
	}
	return t, nil
}

// matching returns the rows of t (in key order) for which where holds
// (nil where: every row).
func (e *Engine) matching(t *tableRT, where planner.Scalar) ([]types.Row, error) {
	rows := t.Rows()
	if where == nil {
		return rows, nil
	}
	keep, err := exec.CompileFilter(where, &e.evalErrs)
	if err != nil {
		return nil, err
	}
	out := rows[:0:0]
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// deleteFrom runs DELETE FROM t WHERE ...: the matching rows leave the
// table durably, and its views and sinks retract them.
func (e *Engine) deleteFrom(st *parser.DeleteStmt) (*Result, error) {
	t, err := e.dmlTable("DELETE", st.Table)
	if err != nil {
		return nil, err
	}
	where, err := planner.BindRowFilter(st.Where, t.obj.Name, t.obj.Schema, e.params)
	if err != nil {
		return nil, err
	}
	rows, err := e.matching(t, where)
	if err != nil {
		return nil, err
	}
	edits := make([]tableEdit, len(rows))
	for i, r := range rows {
		edits[i] = tableEdit{key: t.key(r)}
	}
	if err := e.writeTable(t, edits); err != nil {
		return nil, err
	}
	return &Result{Tag: "DELETE " + strconv.Itoa(len(rows))}, nil
}

// update runs UPDATE t SET col = expr, ... WHERE ...: each matching row
// is replaced by its updated form (a changed key deletes the old key and
// inserts the new one, as Postgres does), durably, and its views and
// sinks retract the old row and take the new one.
func (e *Engine) update(st *parser.UpdateStmt) (*Result, error) {
	t, err := e.dmlTable("UPDATE", st.Table)
	if err != nil {
		return nil, err
	}
	set, err := e.bindSet(t, st)
	if err != nil {
		return nil, err
	}
	where, err := planner.BindRowFilter(st.Where, t.obj.Name, t.obj.Schema, e.params)
	if err != nil {
		return nil, err
	}
	rows, err := e.matching(t, where)
	if err != nil {
		return nil, err
	}
	news := make([]types.Row, len(rows))
	for i, r := range rows {
		if news[i], err = set.apply(r); err != nil {
			return nil, err
		}
	}
	if err := t.checkKeys(news); err != nil {
		return nil, err
	}
	edits, err := t.updateEdits(rows, news)
	if err != nil {
		return nil, err
	}
	if err := e.writeTable(t, edits); err != nil {
		return nil, err
	}
	return &Result{Tag: "UPDATE " + strconv.Itoa(len(rows))}, nil
}

// updateEdits turns rows replaced by news into edits: the deletes of
// keys that change first, then the new rows. A new key that another row
// keeps, or two rows given one key, is a unique violation (23505).
func (t *tableRT) updateEdits(rows, news []types.Row) ([]tableEdit, error) {
	moved := map[string]bool{}
	var edits []tableEdit
	for i, r := range rows {
		if k := t.key(r); k != t.key(news[i]) {
			moved[k] = true
			edits = append(edits, tableEdit{key: k})
		}
	}
	taken := map[string]bool{}
	for i, r := range rows {
		k, nk := t.key(r), t.key(news[i])
		_, exists := t.rows[nk]
		if taken[nk] || (k != nk && exists && !moved[nk]) {
			return nil, sqlerr.New(sqlerr.UniqueViolation, "duplicate key value violates unique constraint %q", t.obj.Name+"_pkey")
		}
		taken[nk] = true
		edits = append(edits, tableEdit{key: nk, row: news[i]})
	}
	return edits, nil
}

// setList is an UPDATE's SET clause compiled: each column's new value
// from the old row, converted to the column's type.
type setList struct {
	t    *tableRT
	cols []int
	eval []exec.Evaluator
}

func (e *Engine) bindSet(t *tableRT, st *parser.UpdateStmt) (*setList, error) {
	s := &setList{t: t}
	seen := map[int]bool{}
	for i, name := range st.Columns {
		c := t.obj.Schema.Index(name)
		if c < 0 {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist", name, t.obj.Name)
		}
		if seen[c] {
			return nil, sqlerr.New(sqlerr.SyntaxError, "multiple assignments to same column %q", name)
		}
		seen[c] = true
		sc, err := planner.BindRowExpr(st.Values[i], t.obj.Name, t.obj.Schema, e.params)
		if err != nil {
			return nil, err
		}
		ev, err := exec.CompileScalar(sc, &e.evalErrs)
		if err != nil {
			return nil, err
		}
		s.cols, s.eval = append(s.cols, c), append(s.eval, ev)
	}
	return s, nil
}

// apply returns r updated: every SET expression reads the old row.
func (s *setList) apply(r types.Row) (types.Row, error) {
	out := append(types.Row(nil), r...)
	for i, c := range s.cols {
		v, err := coerce(s.eval[i](r), s.t.obj.Schema[c])
		if err != nil {
			return nil, err
		}
		out[c] = v
	}
	return out, nil
}
