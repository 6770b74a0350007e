package engine

import (
	"context"
	"errors"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Prepared is one statement parsed once for a wire server's extended
// protocol (Parse, then Describe and Execute any number of times): the
// parsed statement, how many parameters it takes and the kinds their
// places give them, and, for a point read of a view or keyed table, its
// point-lookup plan. Execute binds parameter values as typed constants
// (planner.ParamResolver): the text is neither rewritten nor parsed
// again. A Prepared belongs to one session: it is not safe for
// concurrent use.
type Prepared struct {
	sql     string
	stmt    parser.Stmt
	nParams int
	kinds   map[int]types.Kind
	point   *PointQuery
}

// Prepare parses sql, one statement with $n parameters, and infers the
// kinds of its parameters from where they stand (ParamKinds); a SELECT
// that is a point read gets its point-lookup plan. A syntax error is
// returned as it is. When ctx ends while Prepare waits for the engine,
// the statement is returned without kinds or point plan (its Execute
// then takes the general path).
func (e *Engine) Prepare(ctx context.Context, sql string) (*Prepared, error) {
	stmts, err := parser.Parse(sql)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, sqlerr.New(sqlerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	p := &Prepared{sql: sql, stmt: stmts[0], nParams: planner.MaxParam(stmts[0]), kinds: map[int]types.Kind{}}
	if e.mu.LockContext(ctx) != nil {
		return p, nil
	}
	defer e.mu.Unlock()
	e.paramKinds(p.stmt, p.kinds)
	if q, ok := p.stmt.(*parser.QueryStmt); ok {
		p.point = e.matchPoint(q)
	}
	return p, nil
}

// NumParams returns the highest $n the statement holds.
func (p *Prepared) NumParams() int { return p.nParams }

// ParamKind returns the kind the place of $n gives it; ok is false when
// nothing places it (a client then sends it as text).
func (p *Prepared) ParamKind(n int) (types.Kind, bool) {
	k, ok := p.kinds[n]
	return k, ok && k != types.Null
}

// IsPointQuery reports whether Execute reads by key (a point read of a
// view or keyed table) rather than planning a query.
func (p *Prepared) IsPointQuery() bool { return p.point != nil }

// paramResolver is the query catalog with the values of a prepared
// statement's parameters.
type paramResolver struct {
	queryResolver
	params []types.Value
}

// Params implements planner.ParamResolver.
func (r paramResolver) Params() []types.Value { return r.params }

// DescribePrepared returns the columns p returns with params as its parameter
// values (nil: not bound yet, NULLs stand in), without running it (nil
// for statements that return no rows). Queries are planned, not
// executed; SHOW, DESCRIBE and EXPLAIN are read-only and run.
func (e *Engine) DescribePrepared(ctx context.Context, p *Prepared, params []types.Value) (types.Schema, error) {
	if p.point != nil {
		return p.point.Schema(), nil
	}
	if params == nil {
		params = make([]types.Value, p.nParams)
	}
	if err := e.mu.LockContext(ctx); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	e.params = params
	defer func() { e.params = nil }()
	switch st := p.stmt.(type) {
	case *parser.QueryStmt:
		n, err := planner.BuildQuery(st, e.queryResolver(), true, e.timeZone())
		if err != nil {
			return nil, locate(err, p.sql, p.stmt)
		}
		return n.Schema(), nil
	case *parser.ShowStmt, *parser.DescribeStmt, *parser.ExplainStmt:
		res, err := e.execStmt(ctx, st)
		if err != nil {
			return nil, locate(err, p.sql, p.stmt)
		}
		return res.Schema, nil
	}
	return nil, nil
}

// Execute runs p with params as the values of its parameters ($1 is
// params[0]), each bound as a constant of its value's kind: a point read
// reads by key, anything else runs as Exec runs the statement. A
// parameter without a value is an error (undefined_parameter).
func (e *Engine) Execute(ctx context.Context, p *Prepared, params []types.Value) (*Result, error) {
	if p.point != nil {
		res, err := e.RunPointQuery(ctx, p.point, params)
		if !errors.Is(err, ErrStalePointQuery) {
			return res, err
		}
		p.point = nil // the relation changed: plan the query from now on
	}
	unlock, err := e.enter(ctx, []parser.Stmt{p.stmt}, params)
	if err != nil {
		return nil, err
	}
	defer unlock()
	res, err := e.execStmt(ctx, p.stmt)
	if err != nil {
		return nil, locate(err, p.sql, p.stmt)
	}
	if res != nil {
		res.TimeZone = e.timeZone()
	}
	return res, nil
}
