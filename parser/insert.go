package parser

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
)

// insert parses INSERT INTO t [PARTITION (p)] [(cols)] VALUES (...), ...
// with TiDB and keeps the parts streamsql uses.
func (p *stmtParser) insert(toks []token) (Stmt, *sqlerr.Error) {
	end := toks[len(toks)-1].end
	rw := p.newRewriter(toks)
	q := &queryRewrite{p: p, rw: rw, toks: toks, end: end, quoteNames: true}
	var errs errList
	errs.add(q.run())
	node, err := p.tidbParse(rw, end)
	errs.add(err)
	if len(q.windows) > 0 {
		errs.add(p.src.syntaxErr(q.windows[0].Pos.Offset, end, "a window function may not appear in INSERT"))
	}
	if e := errs.first(); e != nil {
		return nil, e
	}
	n, ok := node.(*ast.InsertStmt)
	if !ok {
		return nil, p.src.unsupported(toks[0].off, stmtKind(toks))
	}
	if err := p.fix(n, nil, end); err != nil {
		return nil, err
	}
	return p.insertStmt(n, toks)
}

// insertStmt converts TiDB's InsertStmt, refusing the forms streamsql
// does not run.
func (p *stmtParser) insertStmt(n *ast.InsertStmt, toks []token) (Stmt, *sqlerr.Error) {
	at := toks[0].off
	switch {
	case n.IsReplace:
		return nil, p.src.unsupported(at, "REPLACE")
	case n.Select != nil:
		return nil, p.src.unsupported(at, "INSERT ... SELECT")
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
	return s, nil
}
