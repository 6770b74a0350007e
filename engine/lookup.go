package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// PointQuery is a prepared point read of a view or a keyed table (a
// TABLE or a dead-letter table): `SELECT cols FROM rel WHERE k1 = $1 AND
// k2 = $2 ...` where the conditions pin every key column to a parameter
// or a constant and nothing else. It reads the matching rows by key
// instead of planning the query and copying the whole relation, which is
// what makes point queries over the wire cheap. It is pure data:
// RunPointQuery checks it still fits the relation.
type PointQuery struct {
	name   string
	obj    *catalog.Object // the catalog object it was prepared against
	rt     *viewRT         // the view runtime, or nil for a table
	cols   []int           // columns returned, in order
	schema types.Schema
	params []int         // per view-key column: the parameter number ($n), or 0
	consts []types.Value // per view-key column when params is 0: a constant
	kinds  []types.Column
}

// ErrStalePointQuery is returned by RunPointQuery when the relation was
// dropped or re-created since PreparePointQuery, or an argument's type
// needs the general path: run the text instead.
var ErrStalePointQuery = errors.New("point query: the relation changed since it was prepared")

// Schema returns the columns the point query returns.
func (p *PointQuery) Schema() types.Schema { return p.schema }

// PreparePointQuery recognises a point read of a view or keyed table in sql (one SELECT,
// with $n parameters or constants); it returns nil when sql is anything
// else, which the caller then runs as usual (also when ctx ends while it
// waits for the engine).
func (e *Engine) PreparePointQuery(ctx context.Context, sql string) *PointQuery {
	stmts, err := parser.Parse(sql)
	if err != nil || len(stmts) != 1 {
		return nil
	}
	q, ok := stmts[0].(*parser.QueryStmt)
	if !ok {
		return nil
	}
	if e.mu.LockContext(ctx) != nil {
		return nil
	}
	defer e.mu.Unlock()
	return e.matchPoint(q)
}

// matchPoint returns the point read q is, or nil: q has the shape of
// one (planner.MatchPointShape), it reads a view or keyed table, and its
// conditions pin every key column once, to a parameter or to a constant
// that compares by key as = would; e.mu is held.
func (e *Engine) matchPoint(q *parser.QueryStmt) *PointQuery {
	shape, ok := planner.MatchPointShape(q)
	if !ok {
		return nil
	}
	o, ok := e.cat.Get(shape.Table)
	if !ok {
		return nil
	}
	rt, key := e.pointKey(o)
	if len(key) == 0 || len(shape.Conds) != len(key) {
		return nil
	}
	p := &PointQuery{name: o.Name, obj: o, rt: rt}
	if !p.selectColumns(o.Schema, shape.Items) || !p.pinKey(o.Schema, key, shape.Conds) {
		return nil
	}
	for _, k := range key {
		p.kinds = append(p.kinds, o.Schema[k])
	}
	return p
}

// selectColumns sets the columns p returns from the select list items
// over schema; false when one names no column.
func (p *PointQuery) selectColumns(schema types.Schema, items []planner.PointItem) bool {
	for _, it := range items {
		if it.Star {
			for i, c := range schema {
				p.cols = append(p.cols, i)
				p.schema = append(p.schema, c)
			}
			continue
		}
		i := schema.Index(it.Column)
		if i < 0 {
			return false
		}
		col := schema[i]
		if it.As != "" {
			col.Name = it.As
		}
		p.cols = append(p.cols, i)
		p.schema = append(p.schema, col)
	}
	return true
}

// pinKey sets the parameter or constant each key column of p is pinned
// to by conds; false unless each pins a different key column, and each
// constant compares by key as the general path's = would.
func (p *PointQuery) pinKey(schema types.Schema, key []int, conds []planner.PointCond) bool {
	p.params = make([]int, len(key))
	p.consts = make([]types.Value, len(key))
	pinned := make([]bool, len(key))
	for _, c := range conds {
		i := schema.Index(c.Column)
		k := indexOf(key, i)
		if i < 0 || k < 0 || pinned[k] {
			return false
		}
		pinned[k] = true
		if c.Param > 0 {
			p.params[k] = c.Param
			continue
		}
		v, err := exec.EvalConst(c.Const)
		if err != nil || !sameMeaning(v, schema[i].Type) {
			return false
		}
		p.consts[k] = v
	}
	return true
}

// pointKey returns the key columns a point read of o can look rows up
// by, and o's view runtime when it is a view: a view's key, a TABLE's or
// a dead-letter table's primary key. It returns no key for anything else
// (sources, side tables, which have no key, keyless views). A read-only
// engine has no runtimes: it reads by the catalog's key.
func (e *Engine) pointKey(o *catalog.Object) (*viewRT, []int) {
	name := strings.ToLower(o.Name)
	switch {
	case e.opts.ReadOnly:
		if o.Kind == catalog.View || (o.Kind == catalog.Table && o.SideOf == "") {
			return nil, o.Key
		}
	case o.Kind == catalog.View:
		if rt := e.views[name]; rt != nil && rt.pipe.View0 != nil {
			return rt, rt.pipe.View0.Key()
		}
	case o.Kind == catalog.Table && o.DeadLetter:
		return nil, o.Key
	case o.Kind == catalog.Table && e.tables[name] != nil:
		return nil, o.Key
	}
	return nil, nil
}

// sameMeaning reports whether comparing a column of kind k with v by key
// gives what the general query path's = gives: same kinds, a string
// (which = converts to the column's type), NULL, or an integer for a
// float column. Anything else takes the general path, which decides (and
// reports type errors).
func sameMeaning(v types.Value, k types.Kind) bool {
	return v.K == k || v.K == types.String || v.K == types.Null || (v.K == types.Int && k == types.Float)
}

func indexOf(xs []int, x int) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// RunPointQuery runs a prepared point query with the parameter values
// args ($1 is args[0]); values are converted to the key columns' types
// as INSERT converts them. It gives up when ctx ends while it waits for
// the engine, and returns ErrStalePointQuery when the relation was
// dropped or re-created since.
func (e *Engine) RunPointQuery(ctx context.Context, p *PointQuery, args []types.Value) (*Result, error) {
	if err := e.mu.LockContext(ctx); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrStalePointQuery
	}
	return e.runPoint(p, args)
}

// runPoint reads the rows of a point query; e.mu is held.
func (e *Engine) runPoint(p *PointQuery, args []types.Value) (*Result, error) {
	key := make(types.Row, len(p.params))
	for i, n := range p.params {
		v := p.consts[i]
		if n > 0 {
			if n > len(args) || !sameMeaning(args[n-1], p.kinds[i].Type) {
				return nil, ErrStalePointQuery
			}
			v = args[n-1]
		}
		v, err := coerce(v, p.kinds[i])
		if err != nil {
			return nil, err
		}
		key[i] = v
	}
	res := &Result{Schema: p.schema}
	for _, v := range key {
		if v.IsNull() { // = NULL matches nothing
			return res, nil
		}
	}
	rows, err := e.getByKey(p, key)
	if err != nil {
		return nil, err
	}
	res.Rows = make([]types.Row, len(rows))
	for i, r := range rows {
		out := make(types.Row, len(p.cols))
		for j, c := range p.cols {
			out[j] = r[c]
		}
		res.Rows[i] = out
	}
	return res, nil
}

// getByKey returns the rows of p's relation whose key is key (values of
// the key columns' kinds, none NULL); e.mu is held.
func (e *Engine) getByKey(p *PointQuery, key types.Row) ([]types.Row, error) {
	name := strings.ToLower(p.name)
	if o, ok := e.cat.Get(name); !ok || o != p.obj {
		return nil, ErrStalePointQuery
	}
	switch {
	case e.opts.ReadOnly:
		return e.storedByKey(p.obj, key)
	case p.rt != nil:
		if e.views[name] != p.rt {
			return nil, ErrStalePointQuery
		}
		return p.rt.pipe.View0.Get(key)
	case p.obj.DeadLetter:
		if d := e.dlq[name]; d != nil {
			return d.get(key)
		}
		return nil, nil // nothing has been dead-lettered yet
	}
	t := e.tables[name]
	if t == nil {
		return nil, ErrStalePointQuery
	}
	return t.get(key), nil
}

// storedByKey reads the rows of o with key key from the last checkpoint,
// on a read-only engine.
func (e *Engine) storedByKey(o *catalog.Object, key types.Row) ([]types.Row, error) {
	switch {
	case o.Kind == catalog.View:
		return exec.StoredGet(e.store, exec.ViewStoreID(o.Name), len(o.Schema), o.Key, key)
	case o.DeadLetter:
		return newDeadLetters(o.Name, e.store).get(key)
	}
	return storedTableGet(e.store, o.Name, key)
}

func (p *PointQuery) hasParams() bool {
	for _, n := range p.params {
		if n > 0 {
			return true
		}
	}
	return false
}
