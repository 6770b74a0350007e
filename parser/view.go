package parser

import (
	"github.com/streamsql/streamsql/sqlerr"
)

// createView parses CREATE MATERIALIZED VIEW [IF NOT EXISTS] name AS query
// [streaming clauses].
func (p *stmtParser) createView(c *cursor) (Stmt, *sqlerr.Error) {
	s := &CreateViewStmt{StmtBase: p.base(c.toks)}
	c.i += 3
	s.IfNotExists = c.accept("IF", "NOT", "EXISTS")
	var err *sqlerr.Error
	if s.Name, _, err = c.name("a view name"); err != nil {
		return nil, err
	}
	if err := c.expect("AS"); err != nil {
		return nil, err
	}
	rest := c.toks[c.i:]
	if len(rest) == 0 {
		return nil, c.errAt(c.peek(0), "expected a query")
	}
	split, clauses, clauseErr := p.splitClauses(rest, c.end)
	if split == 0 {
		return nil, c.errAt(rest[0], "expected a query")
	}
	var errs errList
	errs.add(clauseErr)
	if s.Query, err = p.parseQuery(rest[:split], c.end, errs); err != nil {
		return nil, err
	}
	s.Streaming = clauses
	return s, nil
}

// splitClauses finds where a view's query ends and its streaming clauses
// begin: at the first EMIT, ALLOWED LATENESS, LATE DATA or STATE TTL
// outside parentheses. These words therefore cannot be unquoted aliases at
// the top level of a view's query (Restore quotes every name).
func (p *stmtParser) splitClauses(toks []token, end int) (int, StreamingClauses, *sqlerr.Error) {
	depth := 0
	for k, t := range toks {
		switch {
		case t.isOp("("):
			depth++
		case t.isOp(")"):
			depth--
		}
		if depth == 0 && isClauseStart(toks, k) {
			c := &cursor{p: p, toks: toks[k:], end: end}
			sc, err := c.streamingClauses()
			return k, sc, err
		}
	}
	return len(toks), StreamingClauses{}, nil
}

// isClauseStart reports whether a streaming clause starts at toks[k].
func isClauseStart(toks []token, k int) bool {
	t := toks[k]
	var nxt token
	if k+1 < len(toks) {
		nxt = toks[k+1]
	}
	return t.is("EMIT") || (t.is("ALLOWED") && nxt.is("LATENESS")) ||
		(t.is("LATE") && nxt.is("DATA")) || (t.is("STATE") && nxt.is("TTL"))
}

// streamingClauses parses ALLOWED LATENESS, LATE DATA, EMIT and STATE TTL
// in any order, each at most once, up to the end of the cursor.
func (c *cursor) streamingClauses() (StreamingClauses, *sqlerr.Error) {
	var sc StreamingClauses
	for !c.atEOF() {
		t := c.peek(0)
		dup := c.errAt(t, "the clause is given twice")
		switch {
		case c.accept("ALLOWED", "LATENESS"):
			if sc.AllowedLateness != nil {
				return sc, dup
			}
			us, err := c.interval(true)
			if err != nil {
				return sc, err
			}
			sc.AllowedLateness = &us
		case c.accept("LATE", "DATA"):
			if sc.LateData != nil {
				return sc, dup
			}
			ld, err := c.lateData()
			if err != nil {
				return sc, err
			}
			sc.LateData = ld
		case c.accept("EMIT"):
			if sc.Emit != nil {
				return sc, dup
			}
			e, err := c.emit()
			if err != nil {
				return sc, err
			}
			sc.Emit = e
		case c.accept("STATE", "TTL"):
			if sc.StateTTL != nil {
				return sc, dup
			}
			us, err := c.interval(false)
			if err != nil {
				return sc, err
			}
			sc.StateTTL = &us
		default:
			return sc, c.errAt(t, "expected ALLOWED LATENESS, LATE DATA, EMIT or STATE TTL")
		}
	}
	return sc, nil
}

// lateData parses the policy after LATE DATA.
func (c *cursor) lateData() (*LateDataClause, *sqlerr.Error) {
	ld := &LateDataClause{}
	switch {
	case c.accept("DROP"):
		ld.Policy = LateDrop
		return ld, nil
	case c.accept("UPDATE", "SIDE", "OUTPUT"):
		ld.Policy = LateUpdateSideOutput
	case c.accept("UPDATE"):
		ld.Policy = LateUpdate
		return ld, nil
	case c.accept("SIDE", "OUTPUT"):
		ld.Policy = LateSideOutput
	default:
		return nil, c.errAt(c.peek(0), "expected DROP, UPDATE, SIDE OUTPUT <table> or UPDATE SIDE OUTPUT <table>")
	}
	var err *sqlerr.Error
	if ld.SideTable, _, err = c.name("the side output table"); err != nil {
		return nil, err
	}
	return ld, nil
}

// emit parses the mode after EMIT.
func (c *cursor) emit() (*EmitClause, *sqlerr.Error) {
	switch {
	case c.accept("ON", "WINDOW"):
		if err := c.expect("CLOSE"); err != nil {
			return nil, err
		}
		return &EmitClause{Mode: EmitOnWindowClose}, nil
	case c.accept("ON", "UPDATE"):
		return &EmitClause{Mode: EmitOnUpdate}, nil
	case c.peek(0).is("ON"):
		return nil, c.errAt(c.peek(1), "expected WINDOW CLOSE or UPDATE")
	case c.accept("EVERY"):
		us, err := c.interval(false)
		if err != nil {
			return nil, err
		}
		return &EmitClause{Mode: EmitEvery, Every: us}, nil
	}
	return nil, c.errAt(c.peek(0), "expected ON WINDOW CLOSE, ON UPDATE or EVERY <interval>")
}

// createPlainView parses CREATE VIEW [IF NOT EXISTS] name AS query. A
// view that is not materialized holds no state, so it takes no streaming
// clauses: those belong to the materialized view that reads it.
func (p *stmtParser) createPlainView(c *cursor) (Stmt, *sqlerr.Error) {
	s := &CreatePlainViewStmt{StmtBase: p.base(c.toks)}
	c.i += 2
	s.IfNotExists = c.accept("IF", "NOT", "EXISTS")
	var err *sqlerr.Error
	if s.Name, _, err = c.name("a view name"); err != nil {
		return nil, err
	}
	if c.peek(0).isOp("(") {
		return nil, c.errAt(c.peek(0), "a column list on CREATE VIEW is not supported; name the columns in the query")
	}
	if err := c.expect("AS"); err != nil {
		return nil, err
	}
	rest := c.toks[c.i:]
	if len(rest) == 0 {
		return nil, c.errAt(c.peek(0), "expected a query")
	}
	split, _, _ := p.splitClauses(rest, c.end)
	if split < len(rest) {
		return nil, c.errAt(rest[split], "a view that is not materialized takes no streaming clauses; put them on the materialized view that reads it")
	}
	if s.Query, err = p.parseQuery(rest, c.end, nil); err != nil {
		return nil, err
	}
	return s, nil
}
