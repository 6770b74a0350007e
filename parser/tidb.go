package parser

import (
	"strconv"
	"strings"
	"sync"

	tidb "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	tidbtypes "github.com/pingcap/tidb/pkg/parser/types"

	// test_driver provides TiDB's literal value expressions.
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/streamsql/streamsql/sqlerr"
)

// sqlMode makes TiDB read the text the way our tokenizer does: "x" is an
// identifier, || concatenates, and a backslash in a string is itself.
const sqlMode = mysql.ModeANSIQuotes | mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes

var tidbParsers = sync.Pool{New: func() any {
	p := tidb.New()
	p.SetSQLMode(sqlMode)
	return p
}}

// tidbParse parses the rewritten text with TiDB and maps a syntax error
// back to the user's text. end is the end of the statement. A tree that
// nests deeper than sqlerr.MaxDepth is refused before anything walks it.
func (p *stmtParser) tidbParse(rw *rewriter, end int) (ast.StmtNode, *sqlerr.Error) {
	text, m := rw.build()
	tp := tidbParsers.Get().(*tidb.Parser)
	defer tidbParsers.Put(tp)
	stmts, _, err := tp.Parse(text, "", "")
	if err != nil {
		return nil, p.tidbErr(err.Error(), text, m, rw.base, end)
	}
	if len(stmts) != 1 {
		return nil, p.src.syntaxErr(rw.base, end, "expected one statement")
	}
	if err := p.checkDepth(stmts[0], rw.base); err != nil {
		return nil, err
	}
	if rw.params > 0 || strings.Contains(text, "?") {
		if err := p.paramsBack(stmts[0], m, end); err != nil {
			return nil, err
		}
	}
	return stmts[0], nil
}

// tidbErr turns TiDB's `line L column C near "rest of text" detail`
// message into our error. The near text is the rewritten text from the
// offending token to its end, which gives the offset.
func (p *stmtParser) tidbErr(msg, text string, m offsetMap, base, end int) *sqlerr.Error {
	const nearTag = ` near "`
	i := strings.Index(msg, nearTag)
	if !strings.HasPrefix(msg, "line ") || i < 0 {
		return p.src.syntaxErr(base, end, msg)
	}
	rest := msg[i+len(nearTag):]
	off, detail := -1, ""
	const totalTag = "(total length "
	if j := strings.LastIndex(rest, totalTag); j >= 0 && len(text) > 2048 {
		n, err := strconv.Atoi(strings.TrimRight(strings.TrimSpace(rest[j+len(totalTag):]), ")"))
		if err == nil && n <= len(text) {
			off = len(text) - n
		}
	} else if near, ok := strings.CutSuffix(rest, `" `); ok && strings.HasSuffix(text, near) {
		off = len(text) - len(near)
	} else {
		for k := 0; k <= len(text) && k < 1<<16; k++ {
			if strings.HasPrefix(rest, text[k:]+`"`) {
				off, detail = k, strings.TrimSpace(rest[len(text)-k+1:])
				break
			}
		}
	}
	if off < 0 {
		return p.src.syntaxErr(base, end, msg)
	}
	return p.src.syntaxErr(m.orig(off), end, detail)
}

// fixVisitor finishes the TiDB tree: it turns the YEAR casts that stand
// for BOOLEAN into TypeTiny casts, finds the aliases of the window
// placeholders and makes array_agg an aggregate.
type fixVisitor struct {
	windows map[string]*WindowTVFClause
	seen    map[string]bool
}

// Enter implements ast.Visitor.
func (v *fixVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.FuncCastExpr:
		if x.FunctionType == ast.CastFunction && x.Tp != nil && x.Tp.GetType() == mysql.TypeYear {
			tp := tidbtypes.NewFieldType(mysql.TypeTiny)
			tp.SetFlen(1)
			tp.AddFlag(mysql.IsBooleanFlag)
			x.Tp = tp
		}
	case *ast.TableSource:
		if tn, ok := x.Source.(*ast.TableName); ok && tn.Schema.L == "" {
			if w := v.windows[tn.Name.L]; w != nil {
				w.Alias = x.AsName.O
				v.seen[tn.Name.L] = true
			}
		}
	}
	return n, false
}

// Leave implements ast.Visitor. It also turns a call of array_agg, which
// TiDB's grammar does not know as an aggregate, into one (TiDB restores
// it as ARRAY_AGG(x), which reads back the same way), and desugars an
// aggregate's FILTER clause (desugarAggFilter).
func (v *fixVisitor) Leave(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == "array_agg" {
		return &ast.AggregateFuncExpr{F: "array_agg", Args: f.Args}, true
	}
	if f, ok := n.(*ast.FuncCallExpr); ok {
		if agg := desugarAggFilter(f); agg != nil {
			return agg, true
		}
	}
	return n, true
}

// fix runs fixVisitor over node and checks every window landed in a FROM
// clause.
func (p *stmtParser) fix(node ast.Node, windows []*WindowTVFClause, end int) *sqlerr.Error {
	v := &fixVisitor{windows: map[string]*WindowTVFClause{}, seen: map[string]bool{}}
	for _, w := range windows {
		v.windows[w.Placeholder] = w
	}
	node.Accept(v)
	for _, w := range windows {
		if !v.seen[w.Placeholder] {
			return p.src.syntaxErr(w.Pos.Offset, end, "a window function may only be a table in FROM")
		}
	}
	return nil
}
