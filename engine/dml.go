package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// insert appends rows to a memory source's durable log or a memory
// table. The INSERT is acknowledged only after the write is synced.
func (e *Engine) insert(st *parser.InsertStmt) (*Result, error) {
	t, err := e.insertTarget(st.Table, st.Partition, st.Columns)
	if err != nil {
		return nil, err
	}
	if st.Query != nil {
		return e.insertQuery(t, st.Query, len(st.Columns) > 0)
	}
	rows := make([][]types.Value, 0, len(st.Rows))
	for _, exprs := range st.Rows {
		if len(exprs) != len(t.cols) {
			return nil, sqlerr.New(sqlerr.SyntaxError, "INSERT has %d expressions but %d target columns", len(exprs), len(t.cols))
		}
		vals := make([]types.Value, len(exprs))
		for j, ex := range exprs {
			s, err := planner.BindValue(ex, e.params)
			if err != nil {
				return nil, err
			}
			if vals[j], err = exec.EvalConst(s); err != nil {
				return nil, err
			}
		}
		rows = append(rows, vals)
	}
	return e.insertValues(t, rows)
}

// insertQuery is INSERT ... SELECT: the query runs as an ad-hoc SELECT
// over snapshots of what it reads (so it cannot read a source directly,
// and reads the target as it was before the statement), and its rows are
// inserted as INSERT VALUES rows are, each value converted to its
// column's type. As in Postgres a query with fewer columns than the
// target leaves the rest NULL unless a column list was given.
func (e *Engine) insertQuery(t *insertTo, q *parser.QueryStmt, listed bool) (*Result, error) {
	res, err := e.query(q)
	if err != nil {
		var se *sqlerr.Error
		if errors.As(err, &se) && se.Code == sqlerr.FeatureNotSupport && se.Hint == "" {
			out := *se
			out.Hint = "INSERT ... SELECT runs its query ad hoc, over the rows of views and tables"
			return nil, &out
		}
		return nil, err
	}
	switch n := len(res.Schema); {
	case n > len(t.cols):
		return nil, sqlerr.New(sqlerr.SyntaxError, "INSERT has more expressions than target columns")
	case n < len(t.cols) && listed:
		return nil, sqlerr.New(sqlerr.SyntaxError, "INSERT has more target columns than expressions")
	case n < len(t.cols):
		t.cols = t.cols[:n]
	}
	rows := make([][]types.Value, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = r
	}
	return e.insertValues(t, rows)
}

// InsertRows is INSERT INTO table (columns) of rows of values, each
// converted to its column's type as INSERT converts literals (nil
// columns: the table's input columns in order); the wire server's COPY
// FROM uses it. It gives up when ctx ends while it waits for the engine.
func (e *Engine) InsertRows(ctx context.Context, table string, columns []string, rows [][]types.Value) (*Result, error) {
	if err := e.mu.LockContext(ctx); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	if e.closed {
		return nil, errors.New("engine is closed")
	}
	t, err := e.insertTarget(table, "", columns)
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		if len(r) != len(t.cols) {
			return nil, sqlerr.New(sqlerr.InvalidParameter, "row %d has %d values but %d target columns", i+1, len(r), len(t.cols))
		}
	}
	return e.insertValues(t, rows)
}

// InsertSchema is the columns INSERT INTO table (columns) fills, in
// order (nil columns: the table's input columns).
func (e *Engine) InsertSchema(ctx context.Context, table string, columns []string) (types.Schema, error) {
	if err := e.mu.LockContext(ctx); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	t, err := e.insertTarget(table, "", columns)
	if err != nil {
		return nil, err
	}
	out := make(types.Schema, len(t.cols))
	for i, c := range t.cols {
		out[i] = t.obj.Schema[c]
	}
	return out, nil
}

// insertTo is where an INSERT's rows go: a memory source's partition or a
// memory table, and the columns its values fill.
type insertTo struct {
	obj   *catalog.Object
	table *tableRT // nil for a source
	part  int
	cols  []int // schema positions of the values
}

// insertTarget resolves an INSERT's table, partition ("" for p0) and
// column names (none: the input columns).
func (e *Engine) insertTarget(name, partition string, columns []string) (*insertTo, error) {
	o, ok := e.cat.Get(name)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", name)
	}
	table := e.tables[strings.ToLower(o.Name)]
	if (o.Kind != catalog.Source && table == nil) || !logged(o) {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "cannot INSERT into %s %q: only memory sources and tables take INSERT", o.Kind, o.Name)
	}
	parts := 1
	if p, err := strconv.Atoi(o.Options["partitions"]); err == nil && p > 0 {
		parts = p
	}
	part := 0
	if partition != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(partition), "p"))
		if err != nil || n < 0 || n >= parts {
			return nil, sqlerr.New(sqlerr.InvalidParameter, "source %q has no partition %q (it has p0..p%d)", o.Name, partition, parts-1)
		}
		part = n
	}
	cols := o.InputColumns()
	if len(columns) > 0 {
		cols = nil
		for _, c := range columns {
			i := o.Schema.Index(c)
			if i < 0 {
				return nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist", c, o.Name)
			}
			if i < len(o.Generated) && o.Generated[i] == catalog.GenComputed {
				return nil, sqlerr.New(sqlerr.InvalidParameter, "column %q is computed from the other columns and cannot be inserted", c)
			}
			if i < len(o.Generated) && o.Generated[i] != catalog.GenNone {
				return nil, sqlerr.New(sqlerr.InvalidParameter, "column %q is generated (%s) and cannot be inserted", c, o.Clock(i))
			}
			cols = append(cols, i)
		}
	}
	return &insertTo{obj: o, table: table, part: part, cols: cols}, nil
}

// insertValues converts rows of values to the target's column types and
// writes them: to a memory table at once, or to a source's log, synced
// before the statement is acknowledged.
func (e *Engine) insertValues(t *insertTo, vals [][]types.Value) (*Result, error) {
	o := t.obj
	now := e.now()
	rows := make([]types.Row, 0, len(vals)+1)
	rows = append(rows, types.Row{types.StringValue(o.Name), types.IntValue(int64(t.part))})
	for _, vs := range vals {
		row := make(types.Row, len(o.Schema))
		for j, v := range vs {
			col := o.Schema[t.cols[j]]
			var err error
			if row[t.cols[j]], err = coerce(v, col); err != nil {
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
	if t.table != nil {
		if err := e.insertTable(t.table, rows[1:]); err != nil {
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
	if v.IsNull() || (v.K == c.Type && (c.Type != types.Decimal || c.Precision == 0)) {
		return v, nil
	}
	s, err := exec.EvalConst(&planner.Cast{Arg: &planner.Const{V: v}, To: c.Type, Precision: c.Precision, Scale: c.Scale})
	if sqlerr.Code(err) == codeOutOfRange {
		return v, &sqlerr.Error{Code: codeOutOfRange, Msg: "column " + c.Name + " is " + strings.ToLower(c.TypeName()), Err: err}
	}
	if err != nil {
		return v, &sqlerr.Error{Code: sqlerr.DatatypeMismatch, Msg: "column " + c.Name + " is of type " + strings.ToLower(c.TypeName()), Err: err}
	}
	return s, nil
}

// codeOutOfRange is numeric_value_out_of_range: a value beyond its
// column's DECIMAL(p, s) keeps it, as in Postgres.
const codeOutOfRange = "22003"

// query runs an ad-hoc SELECT over view and table snapshots.
func (e *Engine) query(st *parser.QueryStmt) (*Result, error) {
	// A point read of a view or keyed table by its key reads those rows
	// only (engine/lookup.go) instead of copying the relation.
	if p := e.matchPoint(st); p != nil && !p.hasParams() {
		if res, err := e.runPoint(p, nil); err != ErrStalePointQuery {
			return res, err
		}
	}
	return e.scanQuery(st)
}

// scanQuery plans st and runs it over snapshots of the relations it
// reads: the general path of query.
func (e *Engine) scanQuery(st *parser.QueryStmt) (*Result, error) {
	n, err := planner.BuildQuery(st, e.queryResolver(), true, e.timeZone())
	if err != nil {
		return nil, err
	}
	// now() is the statement time, fixed once for the whole statement.
	n, _ = planner.Optimize(planner.FoldClocks(n, e.now()))
	rows, err := exec.RunQueryKeyed(n, e.snapshot, keyedTables{e})
	if err != nil {
		return nil, err
	}
	return &Result{Schema: n.Schema(), Rows: rows}, nil
}

// snapshot returns the current rows of a view or side table.
func (e *Engine) snapshot(s *planner.Scan) ([]types.Row, error) {
	if rows, ok := e.systemRows(s.Name); ok {
		return rows, nil
	}
	o, ok := e.cat.Get(s.Name)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", s.Name)
	}
	if e.opts.ReadOnly {
		return e.storedSnapshot(o)
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
