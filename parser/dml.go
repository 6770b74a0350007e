package parser

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
)

// dml parses DELETE and UPDATE with TiDB and keeps the single-table forms
// streamsql runs.
func (p *stmtParser) dml(toks []token) (Stmt, *sqlerr.Error) {
	end := toks[len(toks)-1].end
	rw := p.newRewriter(toks)
	q := &queryRewrite{p: p, rw: rw, toks: toks, end: end, quoteNames: true}
	var errs errList
	errs.add(q.run())
	node, err := p.tidbParse(rw, end)
	errs.add(err)
	if len(q.windows) > 0 {
		errs.add(p.src.syntaxErr(q.windows[0].Pos.Offset, end, "a window function may not appear in "+stmtKind(toks)))
	}
	if e := errs.first(); e != nil {
		return nil, e
	}
	if err := p.fix(node, nil, end); err != nil {
		return nil, err
	}
	switch n := node.(type) {
	case *ast.DeleteStmt:
		return p.deleteStmt(n, toks)
	case *ast.UpdateStmt:
		return p.updateStmt(n, toks)
	}
	return nil, p.src.unsupported(toks[0].off, stmtKind(toks))
}

// deleteStmt converts TiDB's DeleteStmt, refusing multi-table and MySQL
// forms.
func (p *stmtParser) deleteStmt(n *ast.DeleteStmt, toks []token) (Stmt, *sqlerr.Error) {
	at := toks[0].off
	switch {
	case n.IsMultiTable:
		return nil, p.src.unsupported(at, "DELETE from several tables")
	case n.Order != nil || n.Limit != nil:
		return nil, p.src.unsupported(at, "DELETE ... ORDER BY / LIMIT")
	}
	tn := singleTable(n.TableRefs)
	if tn == nil || tn.Schema.O != "" {
		return nil, p.src.unsupported(at, "this DELETE target")
	}
	return &DeleteStmt{StmtBase: p.base(toks), Table: tn.Name.O, Where: n.Where}, nil
}

// updateStmt converts TiDB's UpdateStmt, refusing multi-table and MySQL
// forms.
func (p *stmtParser) updateStmt(n *ast.UpdateStmt, toks []token) (Stmt, *sqlerr.Error) {
	at := toks[0].off
	switch {
	case n.MultipleTable || (n.TableRefs != nil && n.TableRefs.TableRefs != nil && n.TableRefs.TableRefs.Right != nil):
		return nil, p.src.unsupported(at, "UPDATE of several tables")
	case n.Order != nil || n.Limit != nil:
		return nil, p.src.unsupported(at, "UPDATE ... ORDER BY / LIMIT")
	}
	tn := singleTable(n.TableRefs)
	if tn == nil || tn.Schema.O != "" {
		return nil, p.src.unsupported(at, "this UPDATE target")
	}
	s := &UpdateStmt{StmtBase: p.base(toks), Table: tn.Name.O, Where: n.Where}
	for _, a := range n.List {
		if a.Column.Table.O != "" && !strings.EqualFold(a.Column.Table.O, tn.Name.O) {
			return nil, p.src.unsupported(at, "a qualified SET column")
		}
		s.Columns = append(s.Columns, a.Column.Name.O)
		s.Values = append(s.Values, a.Expr)
	}
	return s, nil
}

// singleTable is the one plain table of refs, or nil.
func singleTable(refs *ast.TableRefsClause) *ast.TableName {
	if refs == nil || refs.TableRefs == nil || refs.TableRefs.Right != nil {
		return nil
	}
	ts, ok := refs.TableRefs.Left.(*ast.TableSource)
	if !ok || ts.AsName.O != "" {
		return nil
	}
	tn, _ := ts.Source.(*ast.TableName)
	return tn
}

// Restore implements Stmt.
func (s *DeleteStmt) Restore() string {
	r := "DELETE FROM " + quoteName(s.Table)
	if s.Where != nil {
		r += " WHERE " + restoreNode(s.Where, nil)
	}
	return r
}

// Restore implements Stmt.
func (s *UpdateStmt) Restore() string {
	sets := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		sets[i] = quoteName(c) + " = " + restoreNode(s.Values[i], nil)
	}
	r := "UPDATE " + quoteName(s.Table) + " SET " + strings.Join(sets, ", ")
	if s.Where != nil {
		r += " WHERE " + restoreNode(s.Where, nil)
	}
	return r
}
