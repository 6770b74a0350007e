package planner

import (
	"errors"
	"github.com/streamsql/streamsql/funcs"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/charset"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Scope resolves names for the binder.
type Scope interface {
	// Resolve finds a column; table is "" when unqualified. Errors are
	// *sqlerr.Error (42703 undefined column, or ambiguous).
	Resolve(table, column string) (index int, kind types.Kind, err error)
	// Aggregate returns the input column holding agg's value, or an error
	// (42803) when aggregates are not allowed here.
	Aggregate(agg *ast.AggregateFuncExpr) (index int, kind types.Kind, err error)
}

// SQLSTATE codes the binder uses that sqlerr does not name.
const (
	codeInvalidText  = "22P02" // invalid_text_representation
	codeCannotCoerce = "42846" // cannot_coerce
)

// BindScalar binds e over scope into the Scalar IR. Errors are
// *sqlerr.Error (42703 unknown column, 42883 unknown function or wrong
// argument kinds, 42804 type mismatch, 22007/22P02 bad literal, 0A000 not
// supported) with a message naming the offending expression.
//
// Untyped string literals take the kind of what they meet: compared with
// (or added to) a TIMESTAMP they are parsed as timestamps here, at bind
// time, and a bad one is a 22007 error. CAST of a literal is folded the
// same way. Int operands of operators stay Int (exec mixes Int and Float
// itself); an Int passed to a function that takes a Float is wrapped in a
// Cast.
func BindScalar(e ast.ExprNode, scope Scope) (Scalar, error) {
	return BindScalarIn(e, scope, "")
}

// BindScalarIn is BindScalar in time zone zone (an IANA name; "" is UTC):
// the zone casts between TIMESTAMPTZ and the zone-less kinds, and
// extract, date_trunc and interval arithmetic on TIMESTAMPTZ, work in.
func BindScalarIn(e ast.ExprNode, scope Scope, zone string) (Scalar, error) {
	b := &binder{scope: scope, zone: zone}
	s, err := b.bind(e)
	if err != nil {
		return nil, err
	}
	return b.zoned(s)
}

type binder struct {
	scope Scope
	// params are the values of the statement's $n parameters ($1 is
	// params[0]), bound as constants of their kinds (params.go).
	params []types.Value
	depth  int    // of the expression being bound, bounded by sqlerr.MaxDepth
	zone   string // the session's TimeZone ("" is UTC)
	// fns are the SQL functions calls may name (nil: none); inlining the
	// ones being inlined now (a call of one of them would recurse); used,
	// when set, collects the names of those inlined.
	fns      FunctionResolver
	inlining []string
	used     *[]string
	// srf, when set, takes the set-returning calls of a SELECT list;
	// otherwise one is refused with an error naming clause (bind_set.go).
	srf    *setCollector
	clause string
	// over, when set, is the OVER call a window Top-N computes: it binds
	// as overConst, a placeholder the WindowTopN replaces (build_topn.go).
	over      *ast.WindowFuncExpr
	overConst *Const
	// overCols are the running-aggregate OVER calls an OverAggregate
	// computes, bound to its output columns (build_over.go).
	overCols map[*ast.WindowFuncExpr]Scalar
	// scalarCols are the scalar subqueries planned as joins and the
	// columns that hold their values (build_scalar_subquery.go).
	scalarCols map[*ast.SubqueryExpr]Scalar
}

func (b *binder) bind(e ast.ExprNode) (Scalar, error) {
	if b.depth++; b.depth > sqlerr.MaxDepth {
		return nil, sqlerr.TooDeep(sqlerr.Pos{}, "expressions")
	}
	defer func() { b.depth-- }()
	switch n := e.(type) {
	case nil:
		return nil, sqlerr.New(sqlerr.InternalError, "missing expression")
	case *parser.ParamExpr:
		return bindParam(n, b.params)
	case ast.ParamMarkerExpr:
		return nil, notSupported(e, "parameter markers are")
	case ast.ValueExpr:
		return bindLiteral(n)
	case *ast.ColumnNameExpr:
		return b.bindColumn(n)
	case *ast.ParenthesesExpr:
		return b.bind(n.Expr)
	case *ast.SetCollationExpr:
		return b.bind(n.Expr)
	case *ast.BinaryOperationExpr:
		return b.bindBinary(n)
	case *ast.UnaryOperationExpr:
		return b.bindUnary(n)
	case *ast.IsNullExpr:
		return b.bindIsNull(n)
	case *ast.IsTruthExpr:
		return b.bindIsTruth(n)
	case *ast.BetweenExpr:
		return b.bindBetween(n)
	case *ast.PatternInExpr:
		return b.bindIn(n)
	case *ast.PatternLikeOrIlikeExpr:
		return b.bindLike(n)
	case *ast.CaseExpr:
		return b.bindCase(n)
	case *ast.FuncCastExpr:
		return b.bindCast(n)
	case *ast.FuncCallExpr:
		return b.bindFuncCall(n)
	case *ast.AggregateFuncExpr:
		idx, k, err := b.scope.Aggregate(n)
		if err != nil {
			return nil, err
		}
		return &ColRef{Index: idx, Name: exprName(n), T: k}, nil
	case *ast.WindowFuncExpr:
		if n == b.over && n != nil {
			return b.overConst, nil
		}
		if c, ok := b.overCols[n]; ok {
			return c, nil
		}
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "window functions (OVER) are not supported here: %s", exprText(e)).
			WithHint("only ROW_NUMBER(), RANK() and DENSE_RANK() OVER (PARTITION BY … ORDER BY …) in a derived table filtered by rn <= N outside it run (Top-N; window Top-N when partitioned by window_start, window_end), and sum, avg, count, min, max OVER (PARTITION BY … ORDER BY ts ROWS|RANGE BETWEEN … PRECEDING AND CURRENT ROW) in a view's select list")
	case *ast.SubqueryExpr:
		if c, ok := b.scalarCols[n]; ok {
			return c, nil
		}
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "scalar subqueries are not supported: %s", exprText(e)).
			WithHint("filter by a subquery with [NOT] IN (SELECT …) or [NOT] EXISTS (SELECT …) in WHERE, or join with it in FROM")
	case *ast.ExistsSubqueryExpr:
		return nil, subqueryPlace(e)
	case *ast.CompareSubqueryExpr:
		return nil, notSupported(e, "comparisons with ANY, SOME or ALL (subquery) are")
	case *ast.TimeUnitExpr:
		return nil, sqlerr.New(sqlerr.SyntaxError, "unexpected time unit %s", n.Unit.String())
	}
	return nil, notSupported(e, "this expression is")
}

// subqueryPlace refuses [NOT] IN (SELECT …) and [NOT] EXISTS anywhere
// but as a conjunct of WHERE, where they become semi and anti joins
// (build_semi.go).
func subqueryPlace(e ast.Node) error {
	return sqlerr.New(sqlerr.FeatureNotSupport, "a subquery test outside a WHERE clause's top-level AND is not supported: %s", exprText(e)).
		WithHint("[NOT] IN (SELECT …) and [NOT] EXISTS (SELECT …) run as conjuncts of WHERE (semi and anti joins)")
}

// exprText renders e as SQL for error messages.
func exprText(e ast.Node) string {
	return restore(e, format.RestoreStringSingleQuotes|format.RestoreKeyWordUppercase|
		format.RestoreSpacesAroundBinaryOperation|format.RestoreStringWithoutCharset)
}

// exprName renders e as SQL for column names in plans (lower-case).
func exprName(e ast.Node) string {
	return restore(e, format.RestoreStringSingleQuotes|format.RestoreKeyWordLowercase|
		format.RestoreNameLowercase|format.RestoreStringWithoutCharset)
}

func restore(e ast.Node, flags format.RestoreFlags) string {
	var sb strings.Builder
	if err := e.Restore(format.NewRestoreCtx(flags, &sb)); err != nil {
		return "?"
	}
	return sb.String()
}

func notSupported(e ast.Node, what string) error {
	return sqlerr.New(sqlerr.FeatureNotSupport, "%s not supported: %s", what, exprText(e))
}

// kindName is the Postgres-style lower-case type name used in messages.
func kindName(k types.Kind) string {
	if k == types.Null {
		return "unknown"
	}
	return strings.ToLower(k.String())
}

func bindLiteral(v ast.ValueExpr) (Scalar, error) {
	switch x := v.GetValue().(type) {
	case nil:
		return &Const{V: types.NullValue}, nil
	case int64:
		if v.GetType().GetFlag()&mysql.IsBooleanFlag != 0 {
			return &Const{V: types.BoolValue(x != 0)}, nil
		}
		return &Const{V: types.IntValue(x)}, nil
	case uint64:
		if x <= math.MaxInt64 {
			return &Const{V: types.IntValue(int64(x))}, nil
		}
		return &Const{V: types.FloatValue(float64(x))}, nil
	case float32:
		return &Const{V: types.FloatValue(float64(x))}, nil
	case float64:
		return &Const{V: types.FloatValue(x)}, nil
	case string:
		return &Const{V: types.StringValue(x)}, nil
	}
	if v.GetType().GetType() == mysql.TypeNewDecimal {
		// A number with a point is a numeric, as in Postgres: exact, with
		// the scale it is written with.
		if d, err := types.ParseDecimal(restore(v, 0)); err == nil {
			return &Const{V: d}, nil
		}
	}
	return nil, notSupported(v, "this literal is")
}

func (b *binder) bindColumn(n *ast.ColumnNameExpr) (Scalar, error) {
	table, col := n.Name.Table.O, n.Name.Name.O
	idx, k, err := b.scope.Resolve(table, col)
	if err != nil {
		return nil, err
	}
	name := col
	if table != "" {
		name = table + "." + col
	}
	return &ColRef{Index: idx, Name: name, T: k}, nil
}

var binaryOps = map[opcode.Op]string{
	opcode.LogicAnd: "and", opcode.LogicOr: "or",
	opcode.GE: ">=", opcode.LE: "<=", opcode.EQ: "=", opcode.NE: "<>", opcode.LT: "<", opcode.GT: ">",
	opcode.Plus: "+", opcode.Minus: "-", opcode.Mul: "*", opcode.Div: "/", opcode.Mod: "%",
	opcode.NullEQ: "is_not_distinct_from",
}

func (b *binder) bindBinary(n *ast.BinaryOperationExpr) (Scalar, error) {
	l, err := b.bind(n.L)
	if err != nil {
		return nil, err
	}
	r, err := b.bind(n.R)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case opcode.LogicXor:
		if err := wantBool(n, "XOR", l, r); err != nil {
			return nil, err
		}
		return &Call{Fn: "<>", Args: []Scalar{l, r}, T: types.Bool}, nil
	case opcode.IntDiv:
		if !isIntLike(l) || !isIntLike(r) {
			return nil, sqlerr.New(sqlerr.UndefinedFunction, "operator does not exist: %s DIV %s, in expression %s",
				kindName(l.Type()), kindName(r.Type()), exprText(n))
		}
		return b.call(n, "/", l, r)
	}
	fn, ok := binaryOps[n.Op]
	if !ok {
		return nil, notSupported(n, "operator "+n.Op.String()+" is")
	}
	if fn == "and" || fn == "or" {
		if err := wantBool(n, strings.ToUpper(fn), l, r); err != nil {
			return nil, err
		}
	}
	return b.call(n, fn, l, r)
}

func isIntLike(s Scalar) bool { return s.Type() == types.Int || s.Type() == types.Null }

// wantBool checks that every arg is BOOLEAN (or an untyped NULL).
func wantBool(n ast.Node, what string, args ...Scalar) error {
	for _, a := range args {
		if k := a.Type(); k != types.Bool && k != types.Null {
			return sqlerr.New(sqlerr.DatatypeMismatch, "argument of %s must be type boolean, not type %s, in expression %s",
				what, kindName(k), exprText(n))
		}
	}
	return nil
}

func (b *binder) bindUnary(n *ast.UnaryOperationExpr) (Scalar, error) {
	v, err := b.bind(n.V)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case opcode.Plus:
		switch v.Type() {
		case types.Int, types.Float, types.Decimal, types.Interval, types.Null:
			return v, nil
		}
		return nil, sqlerr.New(sqlerr.UndefinedFunction, "operator does not exist: + %s, in expression %s",
			kindName(v.Type()), exprText(n))
	case opcode.Minus:
		if c, ok := v.(*Const); ok {
			switch c.V.K {
			case types.Int:
				if c.V.I != math.MinInt64 {
					return &Const{V: types.IntValue(-c.V.I)}, nil
				}
			case types.Float:
				return &Const{V: types.FloatValue(-c.V.F)}, nil
			case types.Decimal:
				return &Const{V: types.DecimalNeg(c.V)}, nil
			case types.Interval:
				if v, err := types.IntervalNeg(c.V); err == nil {
					return &Const{V: v}, nil
				}
			}
		}
		return b.call(n, "neg", v)
	case opcode.Not, opcode.Not2:
		if err := wantBool(n, "NOT", v); err != nil {
			return nil, err
		}
		if c, ok := v.(*Call); ok && c.Fn == "is_not_distinct_from" {
			// IS DISTINCT FROM, which the parser delivers as NOT (a <=> b).
			return &Call{Fn: "is_distinct_from", Args: c.Args, T: types.Bool}, nil
		}
		return &Call{Fn: "not", Args: []Scalar{v}, T: types.Bool}, nil
	}
	return nil, notSupported(n, "operator "+n.Op.String()+" is")
}

func not(s Scalar) Scalar { return &Call{Fn: "not", Args: []Scalar{s}, T: types.Bool} }

func (b *binder) bindIsNull(n *ast.IsNullExpr) (Scalar, error) {
	v, err := b.bind(n.Expr)
	if err != nil {
		return nil, err
	}
	fn := "is_null"
	if n.Not {
		fn = "is_not_null"
	}
	return &Call{Fn: fn, Args: []Scalar{v}, T: types.Bool}, nil
}

func (b *binder) bindIsTruth(n *ast.IsTruthExpr) (Scalar, error) {
	v, err := b.bind(n.Expr)
	if err != nil {
		return nil, err
	}
	fn := "is_false"
	if n.True != 0 {
		fn = "is_true"
	}
	if err := wantBool(n, strings.ToUpper(strings.ReplaceAll(fn, "_", " ")), v); err != nil {
		return nil, err
	}
	if n.Not {
		fn = strings.Replace(fn, "is_", "is_not_", 1)
	}
	return &Call{Fn: fn, Args: []Scalar{v}, T: types.Bool}, nil
}

// bindBetween expands x BETWEEN lo AND hi into (x >= lo) AND (x <= hi), so
// the planner sees two plain comparisons (interval joins are found that
// way). NOT BETWEEN is (x < lo) OR (x > hi).
func (b *binder) bindBetween(n *ast.BetweenExpr) (Scalar, error) {
	x, err := b.bind(n.Expr)
	if err != nil {
		return nil, err
	}
	lo, err := b.bind(n.Left)
	if err != nil {
		return nil, err
	}
	hi, err := b.bind(n.Right)
	if err != nil {
		return nil, err
	}
	lop, hop, join := ">=", "<=", "and"
	if n.Not {
		lop, hop, join = "<", ">", "or"
	}
	l, err := b.call(n, lop, x, lo)
	if err != nil {
		return nil, err
	}
	h, err := b.call(n, hop, x, hi)
	if err != nil {
		return nil, err
	}
	return &Call{Fn: join, Args: []Scalar{l, h}, T: types.Bool}, nil
}

func (b *binder) bindIn(n *ast.PatternInExpr) (Scalar, error) {
	if n.Sel != nil {
		return nil, subqueryPlace(n)
	}
	args, err := b.bindAll(append([]ast.ExprNode{n.Expr}, n.List...))
	if err != nil {
		return nil, err
	}
	s, err := b.call(n, "in", args...)
	if err != nil || !n.Not {
		return s, err
	}
	return not(s), nil
}

func (b *binder) bindLike(n *ast.PatternLikeOrIlikeExpr) (Scalar, error) {
	args, err := b.bindAll([]ast.ExprNode{n.Expr, n.Pattern})
	if err != nil {
		return nil, err
	}
	if n.EscapeExplicit {
		args = append(args, &Const{V: types.StringValue(string(rune(n.Escape)))})
	}
	fn := "like"
	if !n.IsLike {
		fn = "ilike"
	}
	s, err := b.call(n, fn, args...)
	if err != nil || !n.Not {
		return s, err
	}
	return not(s), nil
}

func (b *binder) bindAll(es []ast.ExprNode) ([]Scalar, error) {
	out := make([]Scalar, len(es))
	for i, e := range es {
		s, err := b.bind(e)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

var caseFunc = &funcs.Func{Name: "case", Sigs: []funcs.Sig{{Args: []types.Kind{funcs.AnyElement}, Variadic: true, Result: funcs.AnyElement}}}

func (b *binder) bindCase(n *ast.CaseExpr) (Scalar, error) {
	if b.srf != nil {
		srf, clause := b.srf, b.clause
		b.srf, b.clause = nil, "CASE"
		defer func() { b.srf, b.clause = srf, clause }()
	}
	c := &Case{}
	if n.Value != nil {
		op, err := b.bind(n.Value)
		if err != nil {
			return nil, err
		}
		c.Operand = op
	}
	results := make([]Scalar, 0, len(n.WhenClauses)+1)
	for _, w := range n.WhenClauses {
		cond, err := b.bind(w.Expr)
		if err != nil {
			return nil, err
		}
		if c.Operand != nil {
			eq, err := b.call(n, "=", c.Operand, cond)
			if err != nil {
				return nil, err
			}
			cond = eq.(*Call).Args[1]
		} else if err := wantBool(n, "CASE/WHEN", cond); err != nil {
			return nil, err
		}
		r, err := b.bind(w.Result)
		if err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, When{Cond: cond})
		results = append(results, r)
	}
	if n.ElseClause != nil {
		e, err := b.bind(n.ElseClause)
		if err != nil {
			return nil, err
		}
		results = append(results, e)
	}
	results, k, err := b.resolve(n, caseFunc, results)
	if err != nil {
		return nil, err
	}
	for i := range c.Whens {
		c.Whens[i].Result = results[i]
	}
	if n.ElseClause != nil {
		c.Else = results[len(results)-1]
	}
	c.T = k
	return c, nil
}

func (b *binder) bindCast(n *ast.FuncCastExpr) (Scalar, error) {
	arg, err := b.bind(n.Expr)
	if err != nil {
		return nil, err
	}
	var to types.Kind
	precision, scale := 0, 0
	tp := n.Tp.GetType()
	if tp == mysql.TypeTiny && mysql.HasIsBooleanFlag(n.Tp.GetFlag()) {
		tp = mysql.TypeNull // the parser marks BOOLEAN / ::boolean casts this way
		to = types.Bool
	}
	if (tp == mysql.TypeString || tp == mysql.TypeVarString) && n.Tp.GetCharset() == charset.CharsetBin {
		tp = mysql.TypeNull // the parser writes ::bytea as CAST(x AS BINARY)
		to = types.Bytea
	}
	switch tp {
	case mysql.TypeNull:
	case mysql.TypeTiny, mysql.TypeShort, mysql.TypeLong, mysql.TypeLonglong, mysql.TypeInt24:
		to = types.Int
	case mysql.TypeFloat, mysql.TypeDouble:
		to = types.Float
	case mysql.TypeNewDecimal:
		// flen 0 is the parser's mark for an unconstrained NUMERIC.
		to, precision, scale = types.Decimal, n.Tp.GetFlen(), n.Tp.GetDecimal()
	case mysql.TypeVarchar, mysql.TypeVarString, mysql.TypeString, mysql.TypeBlob,
		mysql.TypeTinyBlob, mysql.TypeMediumBlob, mysql.TypeLongBlob:
		to = types.String
	case mysql.TypeDatetime, mysql.TypeTimestamp:
		to = types.Timestamp
	case mysql.TypeDate, mysql.TypeNewDate:
		to = types.Date
	case mysql.TypeDuration:
		to = types.Time
	case mysql.TypeJSON: // the parser writes ::jsonb as a JSON cast
		to = types.JSONB
	default:
		return nil, notSupported(n, "cast to "+n.Tp.String()+" is")
	}
	s, err := castTo(n, arg, to)
	if err != nil || precision <= 0 {
		return s, err
	}
	return fitDecimal(s, precision, scale)
}

// fitDecimal makes s a DECIMAL(precision, scale): a constant is fitted
// now (a value that does not fit is a 22003 error), anything else gets a
// Cast that fits at run time.
func fitDecimal(s Scalar, precision, scale int) (Scalar, error) {
	if c, ok := s.(*Const); ok {
		if c.V.K == types.Null {
			return c, nil
		}
		v, err := types.DecimalFit(c.V, precision, scale)
		if err != nil {
			return nil, decimalError(err)
		}
		return &Const{V: v}, nil
	}
	if c, ok := s.(*Cast); ok && c.To == types.Decimal && c.Precision == 0 {
		return &Cast{Arg: c.Arg, To: types.Decimal, Precision: precision, Scale: scale}, nil
	}
	return &Cast{Arg: s, To: types.Decimal, Precision: precision, Scale: scale}, nil
}

// decimalError turns a types.DecimalError into a *sqlerr.Error with its
// SQLSTATE.
func decimalError(err error) error {
	var de *types.DecimalError
	if errors.As(err, &de) {
		return &sqlerr.Error{Code: de.Code, Msg: de.Msg}
	}
	return err
}

// castTo casts arg to kind to, folding string literals at bind time.
func castTo(n ast.Node, arg Scalar, to types.Kind) (Scalar, error) {
	from := arg.Type()
	if from == to {
		return arg, nil
	}
	if !CanCast(from, to) {
		return nil, sqlerr.New(codeCannotCoerce, "cannot cast type %s to %s, in expression %s",
			kindName(from), kindName(to), exprText(n))
	}
	if isStringLiteral(arg) {
		return coerceLiteral(arg.(*Const), to)
	}
	if c, ok := arg.(*Const); ok && implicitCast(from, to) {
		return foldCast(c, to), nil
	}
	return &Cast{Arg: arg, To: to}, nil
}

func isStringLiteral(s Scalar) bool {
	c, ok := s.(*Const)
	return ok && c.V.K == types.String
}

// coerceLiteral converts an untyped string literal to kind to.
func coerceLiteral(c *Const, to types.Kind) (Scalar, error) {
	s := c.V.S
	switch to {
	case types.String:
		return c, nil
	case types.Timestamp:
		us, err := types.ParseTimestamp(s)
		if err != nil {
			return nil, &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type timestamp: '" + s + "'", Err: err}
		}
		return &Const{V: types.TimestampValue(us)}, nil
	case types.TimestampTZ, types.ArrayOf(types.TimestampTZ): // read in the binder's zone: zoned folds it
		return &Cast{Arg: c, To: to}, nil
	case types.Time:
		us, err := types.ParseTime(s)
		if err != nil {
			return nil, &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type time: '" + s + "'", Err: err}
		}
		return &Const{V: types.TimeValue(us)}, nil
	case types.Interval:
		v, err := types.ParseIntervalValue(s, "")
		if err != nil {
			return nil, intervalInputErr(s, err)
		}
		return &Const{V: v}, nil
	case types.Int:
		if i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
			return &Const{V: types.IntValue(i)}, nil
		}
	case types.Float:
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return &Const{V: types.FloatValue(f)}, nil
		}
	case types.Decimal:
		d, err := types.ParseDecimal(s)
		if err != nil {
			return nil, decimalError(err)
		}
		return &Const{V: d}, nil
	case types.Date:
		d, err := types.ParseDate(s)
		if err != nil {
			return nil, &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type date: '" + s + "'", Err: err}
		}
		return &Const{V: types.DateValue(d)}, nil
	case types.Bool:
		if v, ok := types.ParseBool(s); ok {
			return &Const{V: types.BoolValue(v)}, nil
		}
	case types.JSONB:
		v, err := types.ParseJSONB(s)
		if err != nil {
			return nil, funcs.JSONErr(err)
		}
		return &Const{V: v}, nil
	case types.Bytea:
		v, err := types.ParseBytea(s)
		if err != nil {
			return nil, funcs.ByteaErr(err)
		}
		return &Const{V: v}, nil
	}
	if to.IsArray() {
		v, err := funcs.ParseArray(s, to.Elem())
		if err != nil {
			return nil, err
		}
		return &Const{V: v}, nil
	}
	return nil, sqlerr.New(codeInvalidText, "invalid input syntax for type %s: '%s'", kindName(to), s)
}

// call resolves fn over args and builds the Call.
func (b *binder) call(n ast.Node, fn string, args ...Scalar) (Scalar, error) {
	f, ok := funcs.Lookup(fn)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s(%s) does not exist", fn, argKinds(args))
	}
	args, k, err := b.resolve(n, f, args)
	if err != nil {
		return nil, err
	}
	return &Call{Fn: f.Name, Args: args, T: k}, nil
}

func argKinds(args []Scalar) string {
	ks := make([]string, len(args))
	for i, a := range args {
		ks[i] = kindName(a.Type())
	}
	return strings.Join(ks, ", ")
}

// resolve picks the cheapest signature of f that accepts args (exact kinds
// first, then Int widened to Float, then string literals coerced), and
// returns the converted args and the result kind. When a literal does not
// parse as the cheapest signature wants, the next signature is tried, so
// `ts - '1 hour'` still binds (as timestamp − interval); the first
// failure is reported when none fits.
func (b *binder) resolve(n ast.Node, f *funcs.Func, args []Scalar) ([]Scalar, types.Kind, error) {
	type cand struct{ sig, cost int }
	var cands []cand
	for i, sig := range f.Sigs {
		if cost, ok := sigCost(sig, args); ok {
			cands = append(cands, cand{i, cost})
		}
	}
	if len(cands) == 0 {
		return nil, 0, noMatch(n, f, args)
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].cost < cands[j].cost })
	var firstErr error
	for _, c := range cands {
		out, k, err := applySig(f, f.Sigs[c.sig], args)
		if err == nil {
			return out, k, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, 0, firstErr
}

// applySig converts args to the kinds sig declares.
func applySig(f *funcs.Func, sig funcs.Sig, args []Scalar) ([]Scalar, types.Kind, error) {
	unified, _ := unifyArgs(sig, args)
	out := make([]Scalar, len(args))
	for i, a := range args {
		p := param(sig, i)
		switch {
		case p == funcs.AnyElement:
			p = unified
		case p == funcs.AnyArray:
			p = types.ArrayOf(unified)
		}
		switch {
		case p == funcs.AnyKind || p == types.Null || a.Type() == p || a.Type() == types.Null:
			out[i] = a
		case isStringLiteral(a):
			c, err := coerceLiteral(a.(*Const), p)
			if err != nil {
				return nil, 0, err
			}
			out[i] = c
		case a.Type() == types.Int && p == types.Float && !f.MixedNumeric:
			out[i] = widen(a)
		case implicitCast(a.Type(), p):
			out[i] = implicitly(a, p)
		default:
			out[i] = a
		}
	}
	res := sig.Result
	switch res {
	case funcs.AnyElement:
		res = unified
	case funcs.AnyArray:
		switch {
		case unified == types.Null:
			unified = types.String // ARRAY[NULL] is text[], as in Postgres
		case unified.IsArray():
			return nil, 0, sqlerr.New(sqlerr.FeatureNotSupport, "arrays of arrays are not supported")
		case !types.ArrayElemOK(unified):
			return nil, 0, sqlerr.New(sqlerr.FeatureNotSupport, "arrays of %s are not supported", unified)
		}
		res = types.ArrayOf(unified)
	}
	return out, res, nil
}

// widen turns an Int expression into a Float one, folding constants.
func widen(a Scalar) Scalar {
	if c, ok := a.(*Const); ok {
		return &Const{V: types.FloatValue(float64(c.V.I))}
	}
	return &Cast{Arg: a, To: types.Float}
}

// implicitly casts a to kind to (an implicitCast), folding constants.
func implicitly(a Scalar, to types.Kind) Scalar {
	if c, ok := a.(*Const); ok {
		return foldCast(c, to)
	}
	return &Cast{Arg: a, To: to}
}

// foldCast applies an implicit cast to a constant; none of them fails
// except a date beyond the timestamp range, which keeps its Cast (and
// fails at run time).
func foldCast(c *Const, to types.Kind) Scalar {
	switch {
	case c.V.K == types.Int && to == types.Decimal:
		return &Const{V: types.DecimalFromInt(c.V.I)}
	case c.V.K == types.Decimal && to == types.Float:
		return &Const{V: types.FloatValue(types.DecimalToFloat(c.V))}
	case c.V.K == types.Date && to == types.Timestamp:
		if us, ok := types.DateToTimestamp(c.V.I); ok {
			return &Const{V: types.TimestampValue(us)}
		}
	}
	return &Cast{Arg: c, To: to}
}

func param(sig funcs.Sig, i int) types.Kind {
	if i >= len(sig.Args) {
		return sig.Args[len(sig.Args)-1]
	}
	return sig.Args[i]
}

func arityOK(sig funcs.Sig, n int) bool {
	if sig.Variadic {
		return n >= len(sig.Args)
	}
	return n == len(sig.Args)
}

// unifyArgs finds the one kind the funcs.AnyElement arguments of sig share:
// typed arguments decide (Int with Float gives Float); untyped NULLs and
// string literals follow. ok is false when typed kinds conflict.
func unifyArgs(sig funcs.Sig, args []Scalar) (types.Kind, bool) {
	k, lit := types.Null, false
	for i, a := range args {
		p := param(sig, i)
		if p != funcs.AnyElement && p != funcs.AnyArray {
			continue
		}
		ak := a.Type()
		if p == funcs.AnyArray {
			if !ak.IsArray() {
				continue // NULL, or a literal: sigCost decides
			}
			ak = ak.Elem()
		}
		switch {
		case ak == types.Null:
		case isStringLiteral(a):
			lit = true
		case k == types.Null || k == ak:
			k = ak
		case isNumeric(k) && isNumeric(ak):
			k = unifyNumeric(k, ak)
		case (k == types.Date && ak == types.Timestamp) || (k == types.Timestamp && ak == types.Date):
			k = types.Timestamp
		case (k == types.TimestampTZ && (ak == types.Timestamp || ak == types.Date)) || (ak == types.TimestampTZ && (k == types.Timestamp || k == types.Date)):
			k = types.TimestampTZ
		default:
			return k, false
		}
	}
	if k == types.Null && lit {
		k = types.String
	}
	return k, true
}

func isNumeric(k types.Kind) bool { return types.IsNumeric(k) }

// unifyNumeric is the kind two different numeric kinds meet in: Float
// when either is Float, else Decimal (Int with Decimal), as in Postgres.
func unifyNumeric(a, b types.Kind) types.Kind {
	if a == types.Float || b == types.Float {
		return types.Float
	}
	return types.Decimal
}

// sigCost scores how well args fit sig: 0 per exact match, 1 per
// argument taken as funcs.AnyKind, 1 per Int
// widened to Float or Decimal and per Date taken as a Timestamp, 2 per
// Decimal taken as a Float (so Int with Decimal stays exact) and per
// string literal coerced to the kind of another argument, and 3 per
// literal coerced to some other kind. Like Postgres, a
// literal is first assumed to be of the other operand's kind, so
// `ts - '2024-01-01'` is timestamp − timestamp.
func sigCost(sig funcs.Sig, args []Scalar) (int, bool) {
	if !arityOK(sig, len(args)) {
		return 0, false
	}
	unified, ok := unifyArgs(sig, args)
	if !ok {
		return 0, false
	}
	cost := 0
	for i, a := range args {
		p := param(sig, i)
		switch {
		case p == funcs.AnyElement:
			p = unified
		case p == funcs.AnyArray && unified == types.Null:
			p = funcs.AnyArray // no array argument fixed the kind
		case p == funcs.AnyArray:
			p = types.ArrayOf(unified)
		}
		ak := a.Type()
		if p == funcs.AnyArray && !ak.IsArray() && ak != types.Null {
			return 0, false
		}
		switch {
		case p == funcs.AnyKind:
			cost++ // a declared kind fits better: bytea || bytea is bytea's
		case p == funcs.AnyArray:
		case ak == p || ak == types.Null || p == types.Null:
		case ak == types.Int && p == types.Float:
			cost++
		case implicitCast(ak, p) && ak == types.Decimal:
			cost += 2
		case implicitCast(ak, p):
			cost++
		case isStringLiteral(a) && hasTypedKind(args, p):
			cost += 2
		case isStringLiteral(a):
			cost += 3
		default:
			return 0, false
		}
	}
	return cost, true
}

// hasTypedKind reports whether some argument other than a string literal
// has kind k.
func hasTypedKind(args []Scalar, k types.Kind) bool {
	for _, a := range args {
		if a.Type() == k && !isStringLiteral(a) {
			return true
		}
	}
	return false
}

func noMatch(n ast.Node, f *funcs.Func, args []Scalar) error {
	if f.Name == parser.ArrayFunc && len(args) == 0 {
		return sqlerr.New("42P18", "cannot determine type of empty array").
			WithHint("write the array as a literal of its type, such as '{}'::bigint[]")
	}
	if len(f.Sigs) == 1 && len(f.Sigs[0].Args) > 0 && f.Sigs[0].Args[0] == funcs.AnyElement && f.Sigs[0].Result != types.Bool {
		return sqlerr.New(sqlerr.DatatypeMismatch, "%s types %s cannot be matched, in expression %s",
			strings.ToUpper(f.Name), conflicting(args), exprText(n))
	}
	if isOperator(f.Name) || f.Name == "neg" || f.Name == "is_not_distinct_from" || f.Name == "in" {
		op := f.Name
		switch op {
		case "neg":
			return sqlerr.New(sqlerr.UndefinedFunction, "operator does not exist: - %s, in expression %s",
				kindName(args[0].Type()), exprText(n))
		case "is_not_distinct_from":
			op = "<=>"
		case "in":
			return sqlerr.New(sqlerr.DatatypeMismatch, "IN types %s cannot be matched, in expression %s",
				conflicting(args), exprText(n))
		}
		if len(args) == 2 {
			return sqlerr.New(sqlerr.UndefinedFunction, "operator does not exist: %s %s %s, in expression %s",
				kindName(args[0].Type()), strings.ToUpper(op), kindName(args[1].Type()), exprText(n))
		}
	}
	return sqlerr.New(sqlerr.UndefinedFunction, "function %s(%s) does not exist, in expression %s",
		f.Name, argKinds(args), exprText(n)).
		WithHint("no function matches the given name and argument types; you might need to add explicit casts")
}

// conflicting names the first two distinct typed kinds among args.
func conflicting(args []Scalar) string {
	var first types.Kind
	for _, a := range args {
		k := a.Type()
		if k == types.Null || isStringLiteral(a) {
			continue
		}
		if first == types.Null {
			first = k
		} else if k != first && !(isNumeric(k) && isNumeric(first)) {
			return kindName(first) + " and " + kindName(k)
		}
	}
	return kindName(first)
}

func (b *binder) bindFuncCall(n *ast.FuncCallExpr) (Scalar, error) {
	name := n.FnName.L
	if err := starCall(name, n.Args); err != nil {
		return nil, err
	}
	switch name {
	case parser.IntervalFunc:
		return bindIntervalFunc(n)
	case parser.IntervalCastFunc:
		return b.bindIntervalCast(n)
	case parser.TimestampTZCastFunc, parser.AtTimeZoneFunc:
		return b.bindZoneFunc(n)
	case parser.ArrayCastFunc:
		return b.bindArrayCast(n)
	case "date_add", "adddate", "date_sub", "subdate":
		if len(n.Args) == 3 {
			return b.bindDateArith(n, name == "date_add" || name == "adddate")
		}
	case "extract":
		return b.bindExtract(n)
	case "date_part", "date_trunc":
		return b.bindUnitFunc(n, name)
	case "position":
		if len(n.Args) == 2 {
			args, err := b.bindAll([]ast.ExprNode{n.Args[1], n.Args[0]})
			if err != nil {
				return nil, err
			}
			return b.call(n, "strpos", args...)
		}
	case "trim":
		return b.bindTrim(n)
	case "if":
		return b.bindIf(n)
	case "now", "current_timestamp", "localtimestamp", "sysdate", "proctime":
		return bindClock(n)
	case ast.DateLiteral, ast.TimestampLiteral, ast.TimeLiteral: // DATE '2024-01-01', TIMESTAMP '...', TIME '...'
		return b.bindTypedLiteral(n)
	}
	if f, ok := funcs.Lookup(name); ok && f.ReturnsSet() {
		return b.bindSetCall(n, f)
	}
	args, err := b.bindAll(n.Args)
	if err != nil {
		return nil, err
	}
	if _, ok := funcs.Lookup(name); !ok {
		if b.fns != nil {
			if f, ok := b.fns.Function(name); ok {
				return b.inline(n, f, args)
			}
		}
		return nil, undefinedFunction(name)
	}
	return b.call(n, name, args...)
}

// bindTypedLiteral binds DATE 'text' and TIMESTAMP 'text' to constants.
func (b *binder) bindTypedLiteral(n *ast.FuncCallExpr) (Scalar, error) {
	to := types.Date
	switch n.FnName.L {
	case ast.TimestampLiteral:
		to = types.Timestamp
	case ast.TimeLiteral:
		to = types.Time
	}
	if len(n.Args) == 1 {
		if arg, err := b.bind(n.Args[0]); err == nil && isStringLiteral(arg) {
			return coerceLiteral(arg.(*Const), to)
		}
	}
	return nil, notSupported(n, "this literal is")
}

// bindDateArith maps TiDB's DATE_ADD(ts, value, unit) to ts + INTERVAL
// constant.
func (b *binder) bindDateArith(n *ast.FuncCallExpr, add bool) (Scalar, error) {
	unit, ok := n.Args[2].(*ast.TimeUnitExpr)
	if !ok {
		return nil, notSupported(n, "this interval is")
	}
	iv, err := b.intervalLiteral(n.Args[1], unit.Unit)
	if err != nil {
		return nil, err
	}
	x, err := b.bind(n.Args[0])
	if err != nil {
		return nil, err
	}
	op := "-"
	if add {
		op = "+"
	}
	return b.call(n, op, x, &Const{V: iv})
}

// bindIntervalFunc turns the parser's stand-in for an interval literal,
// __interval('text', 'UNIT'), into the interval constant.
func bindIntervalFunc(n *ast.FuncCallExpr) (Scalar, error) {
	var args [2]string
	for i := range args {
		c, ok := n.Args[i].(ast.ValueExpr)
		if !ok || len(n.Args) != 2 {
			return nil, notSupported(n, "this interval is")
		}
		args[i], _ = c.GetValue().(string)
	}
	v, err := types.ParseIntervalValue(args[0], types.IntervalUnit(args[1]))
	if err != nil {
		return nil, intervalInputErr(args[0], err)
	}
	return &Const{V: v}, nil
}

// bindIntervalCast binds the parser's stand-in for CAST(x AS INTERVAL):
// a string literal reads as an interval constant, text casts at run time
// (22007 when it does not read), an interval stays as it is.
func (b *binder) bindIntervalCast(n *ast.FuncCallExpr) (Scalar, error) {
	if len(n.Args) != 1 {
		return nil, notSupported(n, "this cast is")
	}
	x, err := b.bind(n.Args[0])
	if err != nil {
		return nil, err
	}
	switch {
	case isStringLiteral(x):
		return coerceLiteral(x.(*Const), types.Interval)
	case x.Type() == types.Interval || x.Type() == types.Null:
		return x, nil
	case x.Type() == types.String:
		return &Cast{Arg: x, To: types.Interval}, nil
	}
	return nil, sqlerr.New(sqlerr.CannotCoerce, "cannot cast type %s to interval", kindName(x.Type()))
}

// bindArrayCast binds __array_cast(x, k), the parser's form of x::T[]
// (k is T's kind number).
func (b *binder) bindArrayCast(n *ast.FuncCallExpr) (Scalar, error) {
	if len(n.Args) != 2 {
		return nil, notSupported(n, "this cast is")
	}
	x, err := b.bind(n.Args[0])
	if err != nil {
		return nil, err
	}
	k, err := b.bind(n.Args[1])
	if err != nil {
		return nil, err
	}
	c, ok := k.(*Const)
	if !ok || c.V.K != types.Int || !types.ArrayElemOK(types.Kind(c.V.I)) {
		return nil, notSupported(n, "this cast is")
	}
	return castTo(n, x, types.ArrayOf(types.Kind(c.V.I)))
}

// intervalInputErr is the error of interval text that does not read:
// 22008 out of range, 22007 otherwise.
func intervalInputErr(s string, err error) error {
	if errors.Is(err, types.ErrIntervalRange) {
		return &sqlerr.Error{Code: sqlerr.DatetimeOverflow, Msg: "interval out of range: '" + s + "'", Err: err}
	}
	return &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type interval: '" + s + "'", Err: err}
}

// timeUnits maps TiDB's interval units to types.IntervalUnit's.
var timeUnits = map[ast.TimeUnitType]string{
	ast.TimeUnitMicrosecond: "us", ast.TimeUnitSecond: "s", ast.TimeUnitMinute: "min",
	ast.TimeUnitHour: "h", ast.TimeUnitDay: "d", ast.TimeUnitWeek: "w",
	ast.TimeUnitMonth: "mon", ast.TimeUnitQuarter: "q", ast.TimeUnitYear: "y",
}

// IntervalLiteral evaluates the value of `INTERVAL value unit` (value an
// integer, decimal or string such as '1.5') to microseconds. It refuses
// months, quarters, years and TiDB's compound units (0A000): they have no
// fixed length.
func IntervalLiteral(value ast.ExprNode, unit ast.TimeUnitType) (int64, error) {
	v, err := (&binder{scope: noColumns{}}).intervalLiteral(value, unit)
	if err != nil {
		return 0, err
	}
	us, ok := types.IntervalDuration(v)
	if !ok {
		return 0, sqlerr.New(sqlerr.FeatureNotSupport, "interval unit %s is not supported here: it has no fixed length", unit.String())
	}
	return us, nil
}

// intervalLiteral evaluates `INTERVAL value unit` to an interval value.
func (b *binder) intervalLiteral(value ast.ExprNode, unit ast.TimeUnitType) (types.Value, error) {
	u, ok := timeUnits[unit]
	if !ok {
		return types.NullValue, sqlerr.New(sqlerr.FeatureNotSupport, "interval unit %s is not supported: use MICROSECOND to YEAR", unit.String())
	}
	v, err := b.bind(value)
	if err != nil {
		return types.NullValue, err
	}
	c, ok := v.(*Const)
	if !ok {
		return types.NullValue, sqlerr.New(sqlerr.FeatureNotSupport, "interval value must be a constant, not %s", v.String())
	}
	text := c.V.String()
	switch c.V.K {
	case types.Int, types.Float, types.Decimal, types.String:
	default:
		return types.NullValue, sqlerr.New(sqlerr.InvalidDatetime, "invalid interval value %s", c.String())
	}
	iv, err := types.ParseIntervalValue(text, u)
	if err != nil {
		return types.NullValue, intervalInputErr(text, err)
	}
	return iv, nil
}

type noColumns struct{}

func (noColumns) Resolve(_, column string) (int, types.Kind, error) {
	return 0, 0, sqlerr.New(sqlerr.UndefinedColumn, "column %q is not allowed here", column)
}

func (noColumns) Aggregate(agg *ast.AggregateFuncExpr) (int, types.Kind, error) {
	return 0, 0, sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed here: %s", exprText(agg))
}

var extractUnitNames = map[ast.TimeUnitType]string{
	ast.TimeUnitMicrosecond: "microseconds", ast.TimeUnitSecond: "second", ast.TimeUnitMinute: "minute",
	ast.TimeUnitHour: "hour", ast.TimeUnitDay: "day", ast.TimeUnitWeek: "week",
	ast.TimeUnitMonth: "month", ast.TimeUnitQuarter: "quarter", ast.TimeUnitYear: "year",
}

func (b *binder) bindExtract(n *ast.FuncCallExpr) (Scalar, error) {
	if len(n.Args) != 2 {
		return nil, notSupported(n, "this form of EXTRACT is")
	}
	unit := ""
	switch u := n.Args[0].(type) {
	case *ast.TimeUnitExpr:
		unit = extractUnitNames[u.Unit]
		if unit == "" {
			return nil, sqlerr.New(sqlerr.FeatureNotSupport, "EXTRACT unit %s is not supported, in expression %s", u.Unit.String(), exprText(n))
		}
	default:
		return nil, notSupported(n, "this form of EXTRACT is")
	}
	return b.unitCall(n, "extract", unit, n.Args[1], true)
}

// bindUnitFunc binds DATE_PART('unit', ts) and DATE_TRUNC('unit', ts): the
// unit must be a constant string.
func (b *binder) bindUnitFunc(n *ast.FuncCallExpr, name string) (Scalar, error) {
	if len(n.Args) != 2 {
		args, err := b.bindAll(n.Args)
		if err != nil {
			return nil, err
		}
		return b.call(n, name, args...)
	}
	u, err := b.bind(n.Args[0])
	if err != nil {
		return nil, err
	}
	if !isStringLiteral(u) {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "the unit of %s must be a constant string, in expression %s",
			strings.ToUpper(name), exprText(n))
	}
	if name == "date_part" {
		name = "extract"
	}
	return b.unitCall(n, name, u.(*Const).V.S, n.Args[1], false)
}

// unitCall binds a unit function's call; isExtract is the EXTRACT syntax,
// which, as in Postgres, refuses time-of-day fields of a DATE (DATE_PART
// casts the date to a timestamp instead).
func (b *binder) unitCall(n ast.Node, fn, unit string, arg ast.ExprNode, isExtract bool) (Scalar, error) {
	valid := funcs.ExtractUnits
	if fn == "date_trunc" {
		valid = funcs.TruncUnits
	}
	norm := funcs.NormalizeUnit(unit)
	ok := false
	for _, v := range valid {
		ok = ok || v == norm
	}
	if !ok {
		return nil, sqlerr.New(sqlerr.InvalidParameter, "unit '%s' not supported by %s (want one of %s), in expression %s",
			unit, strings.ToUpper(fn), strings.Join(valid, ", "), exprText(n))
	}
	x, err := b.bind(arg)
	if err != nil {
		return nil, err
	}
	if isExtract && x.Type() == types.Date && funcs.TimeOfDayUnit(norm) {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "unit \"%s\" not supported for type date, in expression %s", unit, exprText(n))
	}
	if fn == "extract" && x.Type() == types.Time && !funcs.TimeOfDayUnit(norm) && norm != "epoch" {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "unit \"%s\" not supported for type time without time zone, in expression %s", unit, exprText(n))
	}
	if fn == "date_trunc" && x.Type() == types.TimestampTZ { // on the zone's wall clock, an instant again
		s, err := b.call(n, fn, &Const{V: types.StringValue(norm)}, &Cast{Arg: x, To: types.Timestamp})
		if err != nil {
			return nil, err
		}
		return &Cast{Arg: s, To: types.TimestampTZ}, nil
	}
	s, err := b.call(n, fn, &Const{V: types.StringValue(norm)}, x)
	if err != nil {
		return nil, err
	}
	if fn == "extract" {
		s.(*Call).T = funcs.ExtractResult(norm)
	}
	return s, nil
}

// bindTrim binds TRIM(s), TRIM(chars FROM s) and TRIM(BOTH|LEADING|TRAILING
// chars FROM s), which TiDB delivers as trim(s[, chars[, direction]]).
func (b *binder) bindTrim(n *ast.FuncCallExpr) (Scalar, error) {
	fn, args := "trim", n.Args
	if len(args) == 3 {
		if d, ok := args[2].(*ast.TrimDirectionExpr); ok {
			switch d.Direction {
			case ast.TrimLeading:
				fn = "ltrim"
			case ast.TrimTrailing:
				fn = "rtrim"
			}
			args = args[:2]
		}
	}
	bound, err := b.bindAll(args)
	if err != nil {
		return nil, err
	}
	return b.call(n, fn, bound...)
}

// bindIf binds MySQL's IF(cond, a, b) as CASE WHEN cond THEN a ELSE b END.
func (b *binder) bindIf(n *ast.FuncCallExpr) (Scalar, error) {
	args, err := b.bindAll(n.Args)
	if err != nil {
		return nil, err
	}
	if len(args) != 3 {
		return nil, sqlerr.New(sqlerr.UndefinedFunction, "function if(%s) does not exist", argKinds(args))
	}
	if err := wantBool(n, "IF", args[0]); err != nil {
		return nil, err
	}
	res, k, err := b.resolve(n, caseFunc, args[1:])
	if err != nil {
		return nil, err
	}
	return &Case{Whens: []When{{Cond: args[0], Result: res[0]}}, Else: res[1], T: k}, nil
}
