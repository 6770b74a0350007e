package engine

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// noColumns is the scope of INSERT VALUES: constants only.
type noColumns struct{}

func (noColumns) Resolve(_, column string) (int, types.Kind, error) {
	return 0, 0, sqlerr.New(sqlerr.UndefinedColumn, "column %q cannot be used in VALUES", column)
}

func (noColumns) Aggregate(*ast.AggregateFuncExpr) (int, types.Kind, error) {
	return 0, 0, sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in VALUES")
}

// insert appends rows to a memory source's durable log. The INSERT is
// acknowledged only after the log write is synced.
func (e *Engine) insert(st *parser.InsertStmt) (*Result, error) {
	o, ok := e.cat.Get(st.Table)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", st.Table)
	}
	table := e.tables[strings.ToLower(o.Name)]
	if (o.Kind != catalog.Source && table == nil) || o.Options["connector"] != "memory" {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "cannot INSERT into %s %q: only memory sources and tables take INSERT", o.Kind, o.Name)
	}
	parts := 1
	if p, err := strconv.Atoi(o.Options["partitions"]); err == nil && p > 0 {
		parts = p
	}
	part := 0
	if st.Partition != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(st.Partition), "p"))
		if err != nil || n < 0 || n >= parts {
			return nil, sqlerr.New(sqlerr.InvalidParameter, "source %q has no partition %q (it has p0..p%d)", o.Name, st.Partition, parts-1)
		}
		part = n
	}
	cols := o.InputColumns()
	if len(st.Columns) > 0 {
		cols = nil
		for _, c := range st.Columns {
			i := o.Schema.Index(c)
			if i < 0 {
				return nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist", c, o.Name)
			}
			if i < len(o.Generated) && o.Generated[i] != catalog.GenNone {
				return nil, sqlerr.New(sqlerr.InvalidParameter, "column %q is generated (%s) and cannot be inserted", c, o.Clock(i))
			}
			cols = append(cols, i)
		}
	}
	now := e.now()
	rows := []types.Row{{types.StringValue(o.Name), types.IntValue(int64(part))}}
	for _, exprs := range st.Rows {
		if len(exprs) != len(cols) {
			return nil, sqlerr.New(sqlerr.SyntaxError, "INSERT has %d expressions but %d target columns", len(exprs), len(cols))
		}
		row := make(types.Row, len(o.Schema))
		for j, ex := range exprs {
			s, err := planner.BindScalar(ex, noColumns{})
			if err != nil {
				return nil, err
			}
			v, err := exec.EvalConst(s)
			if err != nil {
				return nil, err
			}
			col := o.Schema[cols[j]]
			if row[cols[j]], err = coerce(v, col); err != nil {
				return nil, err
			}
		}
		for c, g := range o.Generated {
			if g == catalog.GenIngestion {
				row[c] = types.TimestampValue(now) // stored in the log: replay sees the same time
			}
		}
		rows = append(rows, row)
	}
	if table != nil {
		if err := e.insertTable(table, rows[1:]); err != nil {
			return nil, err
		}
		return &Result{Tag: "INSERT 0 " + strconv.Itoa(len(rows)-1)}, nil
	}
	e.logSeq++
	seq := e.logSeq
	if err := e.store.Update(func(w *state.Writer) error { return w.Set(logKey(seq), state.EncodeValue(rows...)) }); err != nil {
		e.logSeq--
		return nil, err
	}
	return &Result{Tag: "INSERT 0 " + strconv.Itoa(len(rows)-1)}, nil
}

// coerce converts an INSERT value to the column's type.
func coerce(v types.Value, c types.Column) (types.Value, error) {
	if v.IsNull() || v.K == c.Type {
		return v, nil
	}
	s, err := exec.EvalConst(&planner.Cast{Arg: &planner.Const{V: v}, To: c.Type})
	if err != nil {
		return v, &sqlerr.Error{Code: sqlerr.DatatypeMismatch, Msg: "column " + c.Name + " is of type " + strings.ToLower(c.Type.String()), Err: err}
	}
	return s, nil
}

// query runs an ad-hoc SELECT over view and table snapshots.
func (e *Engine) query(st *parser.QueryStmt) (*Result, error) {
	// A point read of a view by its key reads those rows only
	// (engine/lookup.go) instead of copying the view.
	if p := e.matchPoint(st); p != nil && !p.hasParams() {
		return e.runPoint(p, nil)
	}
	n, err := planner.BuildQuery(st, e.cat, true)
	if err != nil {
		return nil, err
	}
	n, _ = planner.Optimize(n)
	rows, err := exec.RunQuery(n, e.snapshot)
	if err != nil {
		return nil, err
	}
	return &Result{Schema: n.Schema(), Rows: rows}, nil
}

// snapshot returns the current rows of a view or side table.
func (e *Engine) snapshot(s *planner.Scan) ([]types.Row, error) {
	o, ok := e.cat.Get(s.Name)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", s.Name)
	}
	if o.Kind == catalog.View {
		if v := e.views[strings.ToLower(o.Name)]; v != nil {
			return v.pipe.View0.Rows()
		}
	}
	if t := e.tables[strings.ToLower(o.Name)]; t != nil && o.Kind == catalog.Table {
		return t.Rows(), nil
	}
	if o.DeadLetter {
		if d := e.dlq[strings.ToLower(o.Name)]; d != nil {
			return d.Rows()
		}
		return nil, nil
	}
	if o.SideOf != "" {
		if v := e.views[strings.ToLower(o.SideOf)]; v != nil && v.pipe.Side != nil {
			return v.pipe.Side.Rows()
		}
		return nil, nil
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupport, "%s %q cannot be queried yet", o.Kind, o.Name)
}
