package engine

import (
	"context"
	"strings"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Describe returns the columns a statement would return, without running
// it (nil for statements that return no rows), as DescribePrepared does
// with its parameters NULL. The text must be one statement.
func (e *Engine) Describe(ctx context.Context, sql string) (types.Schema, error) {
	p, err := e.prepareText(sql)
	if err != nil {
		return nil, err
	}
	return e.DescribePrepared(ctx, p, nil)
}

// prepareText parses sql into a Prepared without looking at the catalog.
func (e *Engine) prepareText(sql string) (*Prepared, error) {
	stmts, err := parser.Parse(sql)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, sqlerr.New(sqlerr.SyntaxError, "cannot describe %d statements at once", len(stmts))
	}
	return &Prepared{sql: sql, stmt: stmts[0], nParams: planner.MaxParam(stmts[0])}, nil
}

// ParamKinds infers the kinds of the Postgres parameters ($1, $2, ...) of
// one statement from where they stand: an INSERT value takes its target
// column's kind, a parameter compared with a column (=, <>, <, <=, >, >=,
// IN, BETWEEN) takes that column's kind, an argument of a SQL function
// its parameter's, a LIMIT or OFFSET BIGINT. Parameters it cannot place
// are absent from the map (the caller treats them as text, which
// compares with any column). Errors are swallowed: the statement's own
// execution reports them, and so does a ctx that ends while it waits for
// the engine.
func (e *Engine) ParamKinds(ctx context.Context, sql string) map[int]types.Kind {
	out := map[int]types.Kind{}
	stmts, err := parser.Parse(sql)
	if err != nil || len(stmts) != 1 {
		return out
	}
	if e.mu.LockContext(ctx) != nil {
		return out
	}
	defer e.mu.Unlock()
	e.paramKinds(stmts[0], out)
	return out
}

// paramKinds is ParamKinds of a parsed statement; e.mu is held.
func (e *Engine) paramKinds(s parser.Stmt, out map[int]types.Kind) {
	switch st := s.(type) {
	case *parser.InsertStmt:
		if st.Query != nil {
			e.queryParamKinds(planner.QueryParams(st.Query), out)
			return
		}
		o, ok := e.cat.Get(st.Table)
		if !ok {
			return
		}
		cols := o.InputColumns()
		if len(st.Columns) > 0 {
			cols = nil
			for _, c := range st.Columns {
				cols = append(cols, o.Schema.Index(c))
			}
		}
		for _, u := range planner.InsertParams(st).Values {
			if u.Pos < len(cols) && cols[u.Pos] >= 0 {
				out[u.Param] = o.Schema[cols[u.Pos]].Type
			}
		}
	case *parser.QueryStmt:
		e.queryParamKinds(planner.QueryParams(st), out)
	case *parser.DeleteStmt, *parser.UpdateStmt:
		e.queryParamKinds(planner.RowParams(st), out)
	case *parser.ExplainStmt:
		if q, ok := st.Stmt.(*parser.QueryStmt); ok {
			e.queryParamKinds(planner.QueryParams(q), out)
		}
	}
}

// queryParamKinds types a query's parameters from where they stand (u):
// an argument of a SQL function takes its parameter's type, a parameter
// compared with a column the type of the first column of that name in
// the relations read (a qualifier naming a relation narrows the search);
// e.mu is held.
func (e *Engine) queryParamKinds(u planner.ParamUses, out map[int]types.Kind) {
	for _, p := range u.Limits {
		out[p] = types.Int
	}
	for _, a := range u.Args {
		if f, ok := e.cat.Function(a.Func); ok && a.NArgs == len(f.Params) {
			out[a.Param] = f.Params[a.Arg].Type
		}
	}
	for _, p := range u.Compared {
		qual := p.Table
		if a, ok := u.Aliases[strings.ToLower(p.Table)]; ok {
			qual = a
		}
		for _, t := range u.Tables {
			if qual != "" && !strings.EqualFold(qual, t) {
				continue
			}
			o, ok := e.cat.Get(t)
			if !ok {
				continue
			}
			if i := o.Schema.Index(p.Column); i >= 0 {
				out[p.Param] = o.Schema[i].Type
				break
			}
		}
	}
}
