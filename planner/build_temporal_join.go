package planner

import (
	"strconv"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// asOfTable returns the table reference of rs when it is written
// `table FOR SYSTEM_TIME AS OF e` (TiDB's TableName.AsOf), else nil.
func asOfTable(rs ast.ResultSetNode) (*ast.TableSource, *ast.TableName) {
	ts, ok := rs.(*ast.TableSource)
	if !ok {
		return nil, nil
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok || tn.AsOf == nil {
		return nil, nil
	}
	return ts, tn
}

// isProcTime reports whether e is PROCTIME() (or now()): a lookup join.
func isProcTime(e ast.ExprNode) bool {
	f, ok := e.(*ast.FuncCallExpr)
	return ok && len(f.Args) == 0 && (f.FnName.L == "proctime" || f.FnName.L == "now")
}

// temporalJoin plans `left [LEFT] JOIN t FOR SYSTEM_TIME AS OF e [AS] r
// ON …`, where t is a TABLE and the ON equalities name all of t's
// primary key. With e = PROCTIME() it is a lookup join (LookupJoin: each
// left row joins t's row as it is when the row is processed); with e a
// watermark column of the left input and t a versioned TABLE (a WATERMARK
// FOR column: the version time) it is an event-time temporal join
// (TemporalJoin: each left row joins the version with the largest version
// time <= e, once both watermarks reach e). Conjuncts on the left alone
// are pushed into the left input of an inner join; conjuncts on the table
// alone stay in the residual (they test the version picked, they do not
// pick among versions); an equality of a left expression and a table
// column is a key, the expression computed as an extra left column that
// a Project over the join drops again.
func (b *builder) temporalJoin(j *ast.Join, where ast.ExprNode, typ JoinType, ts *ast.TableSource, tn *ast.TableName) (Node, *relScope, error) {
	if b.adhoc {
		return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "FOR SYSTEM_TIME AS OF runs in a materialized view, not in an ad-hoc query").
			WithHint("create a materialized view with the join and query it")
	}
	if typ != InnerJoin && typ != LeftOuterJoin {
		return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "a temporal join (FOR SYSTEM_TIME AS OF) is an inner or LEFT join, not a %s join", typ)
	}
	if j.On == nil {
		return nil, nil, sqlerr.New(sqlerr.SyntaxError, "a temporal join (FOR SYSTEM_TIME AS OF) needs an ON condition on the table's primary key")
	}
	o, ok := b.cat.Get(tn.Name.O)
	if !ok {
		return nil, nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", tn.Name.O)
	}
	if o.Kind != catalog.Table {
		return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "FOR SYSTEM_TIME AS OF reads a TABLE; %q is a %s", o.Name, o.Kind).
			WithHint("declare the versioned relation as a TABLE with a PRIMARY KEY")
	}
	left, ls, err := b.resultSet(j.Left)
	if err != nil {
		return nil, nil, err
	}
	right, err := b.scan(o)
	if err != nil {
		return nil, nil, err
	}
	alias := ts.AsName.O
	if alias == "" {
		alias = tn.Name.O
	}
	rs := newRelScope(alias, right.Schema())
	jn := &Join{Left: left, Right: right, Type: typ, Kind: LookupJoin, LeftTime: TimeColumn(left), RightTime: -1}
	if !isProcTime(tn.AsOf.TsExpr) {
		if err := b.versionTime(jn, tn.AsOf.TsExpr, ls, o); err != nil {
			return nil, nil, err
		}
	}
	scope := ls.join(rs)
	nl := len(ls.cols)
	lf, rest, extra, extraKeys, err := b.temporalConds(jn, j.On.Expr, where, scope, nl)
	if err != nil {
		return nil, nil, err
	}
	if err := checkKeyCoversPK(jn, extraKeys, o); err != nil {
		return nil, nil, err
	}
	if len(lf) > 0 {
		left = &Filter{Input: left, Pred: andAll(lf)}
	}
	nx := len(extra)
	if nx > 0 {
		names := make([]string, nx)
		for i := range names {
			names[i] = "$key" + strconv.Itoa(i)
		}
		left = appendColumns(left, left.Schema(), extra, names)
		for i, rc := range extraKeys {
			jn.LeftKeys, jn.RightKeys = append(jn.LeftKeys, nl+i), append(jn.RightKeys, rc)
		}
	}
	jn.Left = left
	jn.Residual = andAll(rest)
	if nx == 0 {
		return jn, scope, nil
	}
	return jn.dropExtra(scope, nl, nx), scope, nil
}

func isColRef(s Scalar) bool { _, ok := s.(*ColRef); return ok }

// temporalConds binds the conjuncts of on and where over scope (the
// stream's nl columns, then the table's) and sorts them: filters of the
// stream alone (inner joins), keys of a stream column (added to jn),
// keys of a stream expression (extra, with their table columns in
// extraKeys) and the rest.
func (b *builder) temporalConds(jn *Join, on, where ast.ExprNode, scope *relScope, nl int) (lf, rest, extra []Scalar, extraKeys []int, err error) {
	conds := conjuncts(on)
	nOn := len(conds)
	conds = append(conds, conjuncts(where)...)
	for i, c := range conds {
		clause := "WHERE"
		if i < nOn {
			clause = "JOIN conditions"
		}
		s, err := b.bindIn(clause, c, scope)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		for _, part := range splitAnd(s) {
			if sideOf(part, nl) == sideLeft && jn.Type == InnerJoin {
				lf = append(lf, part)
				continue
			}
			e, rc, ok := exprKey(part, nl, b.zone)
			switch {
			case !ok:
				rest = append(rest, part)
			case isColRef(e):
				jn.LeftKeys, jn.RightKeys = append(jn.LeftKeys, e.(*ColRef).Index), append(jn.RightKeys, rc)
			default:
				extra, extraKeys = append(extra, e), append(extraKeys, rc)
			}
		}
	}
	return lf, rest, extra, extraKeys, nil
}

// versionTime makes jn an event-time temporal join on e, which must be a
// watermark column of the left input, over TABLE o, which must have a
// WATERMARK FOR column (its version time).
func (b *builder) versionTime(jn *Join, e ast.ExprNode, ls *relScope, o *catalog.Object) error {
	s, err := b.bindIn("FOR SYSTEM_TIME AS OF", e, ls)
	if err != nil {
		return err
	}
	c, ok := s.(*ColRef)
	if !ok || c.T != types.Timestamp || !TimeColumnOf(jn.Left, c.Index) {
		return sqlerr.New(sqlerr.FeatureNotSupport, "FOR SYSTEM_TIME AS OF takes PROCTIME() or a watermark column of the joined stream, not %s", s.String()).
			WithHint("name the stream's WATERMARK FOR column (FOR SYSTEM_TIME AS OF o.ts), or write FOR SYSTEM_TIME AS OF PROCTIME() for a lookup join")
	}
	if o.TimeCol < 0 {
		return sqlerr.New(sqlerr.FeatureNotSupport, "table %q is not a versioned TABLE: an event-time temporal join needs its version time", o.Name).
			WithHint("declare WATERMARK FOR <timestamp column> AS <column> [- INTERVAL ...] on the TABLE, or join FOR SYSTEM_TIME AS OF PROCTIME()")
	}
	jn.Kind, jn.LeftTime, jn.RightTime = TemporalJoin, c.Index, o.TimeCol
	return nil
}

// exprKey reads part as left-expression = table-column (either order):
// a key whose left side may be computed. The expression is cast to the
// column's type when = unifies the two in that type (so equal keys
// encode alike), and the pair is no key when it unifies them otherwise.
func exprKey(part Scalar, nl int, zone string) (Scalar, int, bool) {
	c, ok := part.(*Call)
	if !ok || c.Fn != "=" || len(c.Args) != 2 {
		return nil, 0, false
	}
	eq, _ := funcs.Lookup("=")
	for _, pair := range [2][2]Scalar{{c.Args[0], c.Args[1]}, {c.Args[1], c.Args[0]}} {
		r, ok := pair[1].(*ColRef)
		if !ok || r.Index < nl || sideOf(pair[0], nl) != sideLeft {
			continue
		}
		l := pair[0]
		if l.Type() == r.T {
			return l, r.Index - nl, true
		}
		if k, ok := unifyArgs(eq.Sigs[0], []Scalar{l, r}); ok && k == r.T {
			return &Cast{Arg: l, To: k, Zone: zone}, r.Index - nl, true
		}
	}
	return nil, 0, false
}

// checkKeyCoversPK refuses a temporal join whose keys do not name every
// primary-key column of the table: a key then picks at most one row (or
// one history of versions) of it.
func checkKeyCoversPK(jn *Join, extraKeys []int, o *catalog.Object) error {
	have := map[int]bool{}
	for _, k := range append(append([]int{}, jn.RightKeys...), extraKeys...) {
		have[k] = true
	}
	for _, k := range o.Key {
		if !have[k] {
			return sqlerr.New(sqlerr.FeatureNotSupport, "a temporal join (FOR SYSTEM_TIME AS OF) must match the primary key of table %q: %q is not compared with =", o.Name, o.Schema[k].Name).
				WithHint("join ON <stream expression> = " + o.Schema[k].Name + " for every primary-key column")
		}
	}
	return nil
}
