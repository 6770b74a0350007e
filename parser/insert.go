package parser

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
)

// insert parses INSERT INTO t [PARTITION (p)] [(cols)] VALUES (...), ...
// and INSERT INTO t [PARTITION (p)] [(cols)] query with TiDB and keeps
// the parts streamsql uses. The query of INSERT ... SELECT is parsed
// again on its own as a QueryStmt, as an ad-hoc SELECT is.
func (p *stmtParser) insert(toks []token) (Stmt, *sqlerr.Error) {
	end := toks[len(toks)-1].end
	rw := p.newRewriter(toks)
	q := &queryRewrite{p: p, rw: rw, toks: toks, end: end, quoteNames: true}
	var errs errList
	errs.add(q.run())
	node, err := p.tidbParse(rw, end)
	errs.add(err)
	n, ok := node.(*ast.InsertStmt)
	if len(q.windows) > 0 && (!ok || n.Select == nil) {
		errs.add(p.src.syntaxErr(q.windows[0].Pos.Offset, end, "a window function may not appear in INSERT"))
	}
	if e := errs.first(); e != nil {
		return nil, e
	}
	if !ok {
		return nil, p.src.unsupported(toks[0].off, stmtKind(toks))
	}
	if n.Select != nil {
		return p.insertStmt(n, toks)
	}
	if err := p.fix(n, nil, end); err != nil {
		return nil, err
	}
	return p.insertStmt(n, toks)
}

// insertQueryStart is the index of the first token of an INSERT's query:
// the one after INSERT INTO t [PARTITION (p)] [(cols)]; len(toks) when
// there is none.
func insertQueryStart(toks []token) int {
	m := matchParens(toks)
	i := 1
	if i < len(toks) && toks[i].is("INTO") {
		i++
	}
	i++ // the table's name (a qualified one is refused before)
	if i+1 < len(toks) && toks[i].is("PARTITION") && toks[i+1].isOp("(") && m[i+1] > 0 {
		i = m[i+1] + 1
	}
	if i+1 < len(toks) && toks[i].isOp("(") && m[i] > 0 {
		next := toks[i+1]
		if !next.is("SELECT") && !next.is("WITH") && !next.is("VALUES") && !next.is("TABLE") && !next.isOp("(") {
			i = m[i] + 1 // the column list
		}
	}
	return min(i, len(toks))
}

// insertStmt converts TiDB's InsertStmt, refusing the forms streamsql
// does not run.
func (p *stmtParser) insertStmt(n *ast.InsertStmt, toks []token) (Stmt, *sqlerr.Error) {
	at := toks[0].off
	switch {
	case n.IsReplace:
		return nil, p.src.unsupported(at, "REPLACE")
	case n.Setlist:
		return nil, p.src.unsupported(at, "INSERT ... SET")
	case len(n.OnDuplicate) > 0:
		return nil, p.src.unsupported(at, "INSERT ... ON DUPLICATE KEY UPDATE")
	case n.IgnoreErr:
		return nil, p.src.unsupported(at, "INSERT IGNORE")
	}
	var tn *ast.TableName
	if n.Table != nil && n.Table.TableRefs != nil && n.Table.TableRefs.Right == nil {
		if ts, ok := n.Table.TableRefs.Left.(*ast.TableSource); ok {
			tn, _ = ts.Source.(*ast.TableName)
		}
	}
	switch {
	case tn == nil:
		return nil, p.src.unsupported(at, "this INSERT target")
	case tn.Schema.O != "":
		return nil, p.src.unsupported(at, "a schema-qualified INSERT target")
	case len(n.PartitionNames) > 1:
		return nil, p.src.unsupported(at, "INSERT into several partitions")
	}
	s := &InsertStmt{StmtBase: p.base(toks), Table: tn.Name.O, Rows: n.Lists}
	if len(n.PartitionNames) == 1 {
		s.Partition = n.PartitionNames[0].O
	}
	for _, c := range n.Columns {
		if c.Table.O != "" {
			return nil, p.src.unsupported(at, "a qualified INSERT column")
		}
		s.Columns = append(s.Columns, c.Name.O)
	}
	if n.Select != nil {
		start := insertQueryStart(toks)
		if start >= len(toks) {
			return nil, p.src.unsupported(at, "this INSERT")
		}
		qs, err := p.parseQuery(toks[start:], toks[len(toks)-1].end, nil)
		if err != nil {
			return nil, err
		}
		s.Rows, s.Query = nil, qs
	}
	return s, nil
}
