package exec

import (
	"errors"
	"github.com/streamsql/streamsql/funcs"
	"math"
	"strings"
	"sync/atomic"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Evaluator computes one expression over an input row. It never panics
// and never returns an error: a runtime failure (division by zero, a bad
// cast, an overflow) yields NULL and is counted in the EvalErrors passed
// at compile time. This is RisingWave's behaviour for streaming queries;
// Flink fails the job instead. We chose RisingWave's because one poison
// row should not stop a long-running view, and the counter keeps the
// failure visible. EvalConst, for INSERT VALUES, returns the error.
//
// The value an Evaluator returns has the Scalar's Type() as its kind, or
// is NULL.
type Evaluator func(row types.Row) types.Value

// EvalErrors counts runtime evaluation failures of compiled expressions
// and keeps the text of the last one. It is safe for concurrent use; a nil
// *EvalErrors discards the counts.
type EvalErrors struct {
	Count atomic.Int64
	Last  atomic.Value // string

	last atomic.Pointer[sqlerr.Error]
}

func (e *EvalErrors) record(err *sqlerr.Error) {
	if e == nil {
		return
	}
	e.Count.Add(1)
	e.Last.Store(err.Error())
	e.last.Store(err)
}

// SQLSTATE codes of runtime failures that sqlerr and funcs do not name.
const (
	codeInvalidText   = "22P02" // invalid_text_representation
	codeInvalidEscape = "22025" // invalid_escape_sequence
	codeCannotCoerce  = "42846" // cannot_coerce
)

// Preallocated runtime errors, so the error path of hot operators does not
// allocate.
var (
	errDivZero     = funcs.ErrDivZero
	errIntRange    = funcs.ErrIntRange
	errTSRange     = funcs.ErrTSRange
	errLikeEscape  = sqlerr.New(codeInvalidEscape, "LIKE pattern must not end with escape character")
	errEscapeChars = sqlerr.New(codeInvalidEscape, "invalid escape string: must be empty or one character")
)

// CompileScalar compiles s into an Evaluator. Runtime failures are counted
// in errs (which may be nil). It fails for functions exec cannot evaluate
// (now(), which is volatile) and for malformed constant arguments.
func CompileScalar(s planner.Scalar, errs *EvalErrors) (Evaluator, error) {
	return (&compiler{errs: errs}).compile(s)
}

// CompileFilter compiles a boolean predicate; NULL counts as false.
func CompileFilter(s planner.Scalar, errs *EvalErrors) (func(types.Row) bool, error) {
	if k := s.Type(); k != types.Bool && k != types.Null {
		return nil, sqlerr.New(sqlerr.DatatypeMismatch, "argument of WHERE must be type boolean, not type %s", strings.ToLower(k.String()))
	}
	return (&compiler{errs: errs}).filter(s)
}

// EvalConst evaluates a Scalar that reads no columns (INSERT VALUES,
// literal arguments) and returns the runtime error, if any, instead of
// NULL.
func EvalConst(s planner.Scalar) (types.Value, error) {
	used := map[int]bool{}
	planner.ColumnsUsed(s, used)
	if len(used) > 0 {
		return types.NullValue, sqlerr.New(sqlerr.FeatureNotSupport, "expression %s reads columns; a constant is required here", s.String())
	}
	errs := &EvalErrors{}
	ev, err := CompileScalar(s, errs)
	if err != nil {
		return types.NullValue, err
	}
	v := ev(nil)
	if e := errs.last.Load(); e != nil {
		return types.NullValue, e
	}
	return v, nil
}

type compiler struct {
	errs *EvalErrors
}

// Typed evaluators used inside compiled trees: ok is false for NULL.
type (
	intEval   func(types.Row) (int64, bool)
	floatEval func(types.Row) (float64, bool)
	boolEval  func(types.Row) (val, ok bool)
)

func (c *compiler) compile(s planner.Scalar) (Evaluator, error) {
	switch e := s.(type) {
	case *planner.ColRef:
		i := e.Index
		return func(r types.Row) types.Value {
			if uint(i) < uint(len(r)) {
				return r[i]
			}
			return types.NullValue
		}, nil
	case *planner.Const:
		v := e.V
		return func(types.Row) types.Value { return v }, nil
	case *planner.Cast:
		return c.compileCast(e)
	case *planner.Case:
		return c.compileCase(e)
	case *planner.Call:
		return c.compileCall(e)
	}
	return nil, sqlerr.New(sqlerr.InternalError, "cannot compile expression %T", s)
}

func (c *compiler) compileAll(args []planner.Scalar) ([]Evaluator, error) {
	out := make([]Evaluator, len(args))
	for i, a := range args {
		ev, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	return out, nil
}

func fromInt(ie intEval) Evaluator {
	return func(r types.Row) types.Value {
		if x, ok := ie(r); ok {
			return types.Value{K: types.Int, I: x}
		}
		return types.NullValue
	}
}

func fromFloat(fe floatEval) Evaluator {
	return func(r types.Row) types.Value {
		if x, ok := fe(r); ok {
			return types.Value{K: types.Float, F: x}
		}
		return types.NullValue
	}
}

func fromBool(be boolEval) Evaluator {
	return func(r types.Row) types.Value {
		v, ok := be(r)
		if !ok {
			return types.NullValue
		}
		return types.BoolValue(v)
	}
}

func (c *compiler) compileCall(e *planner.Call) (Evaluator, error) {
	f, ok := funcs.Lookup(e.Fn)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s is not known to exec", e.Fn)
	}
	if f.Volatile {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "%s() cannot be evaluated in a continuous query: it is not deterministic", e.Fn)
	}
	if f.ReturnsSet() {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "set-returning function %s cannot be evaluated as a scalar", e.Fn)
	}
	if f.Evaluated() {
		return c.compileImpl(e, f)
	}
	switch e.Fn {
	case "+", "-", "*", "/", "%", "neg":
		if isDateArith(e) {
			return c.compileDateArith(e)
		}
		switch e.T {
		case types.Decimal:
			return c.compileDecimalArith(e)
		case types.Int:
			if ev := intColConstValue(e); ev != nil {
				return ev, nil
			}
			ie, err := c.compileInt(e)
			return fromInt(ie), err
		case types.Float:
			if ev := floatConstCol(e); ev != nil {
				return ev, nil
			}
			fe, err := c.compileFloat(e)
			return fromFloat(fe), err
		}
		return c.compileTimeArith(e)
	}
	if e.T == types.Bool {
		be, err := c.compileBool(e)
		if err != nil {
			return nil, err
		}
		return fromBool(be), nil
	}
	switch e.Fn {
	case "array":
		return c.compileArray(e)
	case "coalesce":
		return c.compileCoalesce(e)
	case "greatest", "least":
		return c.compileExtreme(e)
	case "nullif":
		return c.compileNullif(e)
	}
	return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s is not implemented in exec", e.Fn)
}

// ---- Integer arithmetic -------------------------------------------------

func (c *compiler) compileInt(s planner.Scalar) (intEval, error) {
	switch e := s.(type) {
	case *planner.ColRef:
		i := e.Index
		return func(r types.Row) (int64, bool) {
			if uint(i) < uint(len(r)) {
				v := r[i]
				return v.I, v.K != types.Null
			}
			return 0, false
		}, nil
	case *planner.Const:
		x, ok := e.V.I, e.V.K != types.Null
		return func(types.Row) (int64, bool) { return x, ok }, nil
	case *planner.Call:
		if isIntArith(e) {
			return c.intArith(e)
		}
	}
	ev, err := c.compile(s)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) (int64, bool) {
		v := ev(r)
		return v.I, v.K != types.Null
	}, nil
}

func isIntArith(e *planner.Call) bool { return isArithOver(e, false) && e.T == types.Int }

// isArithOver reports whether e is arithmetic on BIGINT (and, with
// floats, DOUBLE) operands.
func isArithOver(e *planner.Call, floats bool) bool {
	switch e.Fn {
	case "+", "-", "*", "/", "%", "neg":
	default:
		return false
	}
	for _, a := range e.Args {
		if k := a.Type(); k != types.Int && k != types.Null && (!floats || k != types.Float) {
			return false
		}
	}
	return true
}

func (c *compiler) intArith(e *planner.Call) (intEval, error) {
	errs := c.errs
	if e.Fn == "neg" {
		x, err := c.compileInt(e.Args[0])
		if err != nil {
			return nil, err
		}
		return func(r types.Row) (int64, bool) {
			a, ok := x(r)
			if !ok {
				return 0, false
			}
			if a == math.MinInt64 {
				errs.record(errIntRange)
				return 0, false
			}
			return -a, true
		}, nil
	}
	if f := intColConst(e, errs); f != nil {
		return f, nil
	}
	l, r, err := operands(e, c.compileInt)
	if err != nil {
		return nil, err
	}
	op := e.Fn[0]
	return strictTyped(l, r, errs, funcs.IntArith(op)), nil
}

// intColConst specialises `column op constant` for the hot shapes (a
// filter like `auction % 123 = 0`): one closure, no checks the constant
// makes unnecessary.
func intColConst(e *planner.Call, errs *EvalErrors) intEval {
	col, ok := e.Args[0].(*planner.ColRef)
	if !ok {
		return nil
	}
	k, ok := e.Args[1].(*planner.Const)
	if !ok || k.V.K != types.Int {
		return nil
	}
	i, b := col.Index, k.V.I
	switch {
	case e.Fn == "%" && b != 0 && b != -1:
		return func(r types.Row) (int64, bool) {
			if uint(i) >= uint(len(r)) {
				return 0, false
			}
			v := r[i]
			return v.I % b, v.K != types.Null
		}
	case e.Fn == "/" && b != 0 && b != -1:
		return func(r types.Row) (int64, bool) {
			if uint(i) >= uint(len(r)) {
				return 0, false
			}
			v := r[i]
			return v.I / b, v.K != types.Null
		}
	}
	op := funcs.IntArith(e.Fn[0])
	return func(r types.Row) (int64, bool) {
		if uint(i) >= uint(len(r)) || r[i].K == types.Null {
			return 0, false
		}
		x, err := op(r[i].I, b)
		if err != nil {
			errs.record(err)
			return 0, false
		}
		return x, true
	}
}

// intColConstValue is intColConst for `column % k` and `column / k` at the
// top of a projection: one Value-returning closure.
func intColConstValue(e *planner.Call) Evaluator {
	i, k, ok := pureColConst(e)
	if !ok {
		return nil
	}
	if e.Fn == "%" {
		return func(r types.Row) types.Value {
			if uint(i) < uint(len(r)) && r[i].K != types.Null {
				return types.Value{K: types.Int, I: r[i].I % k}
			}
			return types.NullValue
		}
	}
	return func(r types.Row) types.Value {
		if uint(i) < uint(len(r)) && r[i].K != types.Null {
			return types.Value{K: types.Int, I: r[i].I / k}
		}
		return types.NullValue
	}
}

// pureColConst recognises `column % k` and `column / k` on BIGINTs where
// the constant k can cause neither division by zero nor overflow.
func pureColConst(e *planner.Call) (col int, k int64, ok bool) {
	if e.T != types.Int || (e.Fn != "%" && e.Fn != "/") || len(e.Args) != 2 {
		return 0, 0, false
	}
	c, isCol := e.Args[0].(*planner.ColRef)
	kc, isConst := e.Args[1].(*planner.Const)
	if !isCol || !isConst || c.T != types.Int || kc.V.K != types.Int || kc.V.I == 0 || kc.V.I == -1 {
		return 0, 0, false
	}
	return c.Index, kc.V.I, true
}

// ---- Float arithmetic ---------------------------------------------------

// numOf reads an Int or Float value as a float64.
func numOf(v types.Value) (float64, bool) {
	switch v.K {
	case types.Float:
		return v.F, true
	case types.Int:
		return float64(v.I), true
	}
	return 0, false
}

func (c *compiler) compileFloat(s planner.Scalar) (floatEval, error) {
	switch e := s.(type) {
	case *planner.ColRef:
		i := e.Index
		return func(r types.Row) (float64, bool) {
			if uint(i) < uint(len(r)) {
				return numOf(r[i])
			}
			return 0, false
		}, nil
	case *planner.Const:
		x, ok := numOf(e.V)
		return func(types.Row) (float64, bool) { return x, ok }, nil
	case *planner.Cast:
		if k := e.Arg.Type(); e.To == types.Float && k == types.Int {
			ie, err := c.compileInt(e.Arg)
			if err != nil {
				return nil, err
			}
			return func(r types.Row) (float64, bool) {
				x, ok := ie(r)
				return float64(x), ok
			}, nil
		}
	case *planner.Call:
		if isIntArith(e) {
			ie, err := c.intArith(e)
			if err != nil {
				return nil, err
			}
			return func(r types.Row) (float64, bool) {
				x, ok := ie(r)
				return float64(x), ok
			}, nil
		}
		if isNumArith(e) {
			return c.floatArith(e)
		}
	}
	ev, err := c.compile(s)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) (float64, bool) { return numOf(ev(r)) }, nil
}

func isNumArith(e *planner.Call) bool { return isArithOver(e, true) }

func (c *compiler) floatArith(e *planner.Call) (floatEval, error) {
	if e.Fn == "neg" {
		x, err := c.compileFloat(e.Args[0])
		if err != nil {
			return nil, err
		}
		return func(r types.Row) (float64, bool) {
			a, ok := x(r)
			return -a, ok
		}, nil
	}
	op, errs := e.Fn[0], c.errs
	l, r, err := operands(e, c.compileFloat)
	if err != nil {
		return nil, err
	}
	return strictTyped(l, r, errs, floatArith(op)), nil
}

// floatConstCol specialises `constant * column` and `column * constant`
// (a projection like `0.908 * price`), and + and - likewise, into one
// Value-returning closure: on small batches an indirect call costs more
// than the arithmetic, so the hot shapes get no nested closures.
func floatConstCol(e *planner.Call) Evaluator {
	if len(e.Args) != 2 {
		return nil
	}
	var col *planner.ColRef
	var k *planner.Const
	var ok bool
	colFirst := false
	if k, ok = e.Args[0].(*planner.Const); ok {
		col, ok = e.Args[1].(*planner.ColRef)
	} else if col, ok = e.Args[0].(*planner.ColRef); ok {
		k, ok = e.Args[1].(*planner.Const)
		colFirst = true
	}
	if !ok || (k.V.K != types.Float && k.V.K != types.Int) {
		return nil
	}
	i := col.Index
	x, _ := numOf(k.V)
	switch {
	case e.Fn == "*":
		return func(r types.Row) types.Value {
			if uint(i) < uint(len(r)) {
				if v, ok := numOf(r[i]); ok {
					return types.Value{K: types.Float, F: x * v}
				}
			}
			return types.NullValue
		}
	case e.Fn == "+":
		return func(r types.Row) types.Value {
			if uint(i) < uint(len(r)) {
				if v, ok := numOf(r[i]); ok {
					return types.Value{K: types.Float, F: x + v}
				}
			}
			return types.NullValue
		}
	case e.Fn == "-" && colFirst:
		return func(r types.Row) types.Value {
			if uint(i) < uint(len(r)) {
				if v, ok := numOf(r[i]); ok {
					return types.Value{K: types.Float, F: v - x}
				}
			}
			return types.NullValue
		}
	}
	return nil
}

// floatArith returns the DOUBLE operator op; division and remainder by
// zero are errors, as in Postgres.
func floatArith(op byte) func(a, b float64) (float64, *sqlerr.Error) {
	switch op {
	case '+':
		return func(a, b float64) (float64, *sqlerr.Error) { return a + b, nil }
	case '-':
		return func(a, b float64) (float64, *sqlerr.Error) { return a - b, nil }
	case '*':
		return func(a, b float64) (float64, *sqlerr.Error) { return a * b, nil }
	case '/':
		return func(a, b float64) (float64, *sqlerr.Error) {
			if b == 0 {
				return 0, errDivZero
			}
			return a / b, nil
		}
	}
	return func(a, b float64) (float64, *sqlerr.Error) {
		if b == 0 {
			return 0, errDivZero
		}
		return math.Mod(a, b), nil
	}
}

// ---- Timestamp and interval arithmetic ----------------------------------

func (c *compiler) compileTimeArith(e *planner.Call) (Evaluator, error) {
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	errs, op := c.errs, e.Fn
	if op == "neg" {
		return strictUnary(args[0], errs, func(v types.Value) (types.Value, error) {
			return timeResult(types.IntervalNeg(v))
		}), nil
	}
	return strictValue(args[0], args[1], errs, func(a, b types.Value) (types.Value, error) {
		return timeOp(op, a, b)
	}), nil
}

// timeOp computes timestamp and interval arithmetic as Postgres does:
// timestamp ± interval on the calendar (types.TimestampAddInterval),
// timestamp − timestamp in days and time, time ± interval on a 24-hour
// clock, time − time an interval, intervals part by part, and
// intervals scaled by numbers with fractions cascading.
func timeOp(op string, a, b types.Value) (types.Value, error) {
	if a.K != types.Interval && b.K == types.Interval && (op == "*" || op == "+") {
		a, b = b, a
	}
	switch {
	case op == "+" && b.K == types.Time:
		return types.TimeValue(types.TimeAddInterval(b.I, a)), nil
	case op == "-" && a.K == types.Time && b.K == types.Time:
		return types.TimeSub(a.I, b.I), nil
	case op == "-" && a.K == types.Time:
		return types.TimeValue(types.TimeAddInterval(a.I, types.IntervalOf(0, 0, -(b.I%types.Day)))), nil
	case op == "+" && b.K == types.Timestamp:
		return timeResult(tsValue(types.TimestampAddInterval(b.I, a)))
	case op == "+" && a.K == types.Timestamp:
		return timeResult(tsValue(types.TimestampAddInterval(a.I, b)))
	case op == "+":
		return timeResult(types.IntervalAdd(a, b))
	case op == "-" && (b.K == types.Timestamp || b.K == types.TimestampTZ):
		return timeResult(types.TimestampSub(a.I, b.I))
	case op == "-":
		nb, err := types.IntervalNeg(b)
		if err != nil {
			return types.NullValue, errIntervalRange
		}
		return timeOp("+", a, nb)
	}
	f, _ := numOf(b)
	if op == "/" {
		if f == 0 {
			return types.NullValue, errDivZero
		}
		return timeResult(types.IntervalDiv(a, f))
	}
	return timeResult(types.IntervalScale(a, f))
}

var errIntervalRange = sqlerr.New(sqlerr.DatetimeOverflow, "interval out of range")

func tsValue(us int64, err error) (types.Value, error) {
	return types.TimestampValue(us), err
}

// timeResult maps the types package's range errors to their SQLSTATEs.
func timeResult(v types.Value, err error) (types.Value, error) {
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, types.ErrTimestampRange):
		return types.NullValue, funcs.ErrTSRange
	}
	return types.NullValue, errIntervalRange
}

// floatToInt rounds half away from zero, as Postgres does for float8 to
// bigint, and fails outside the BIGINT range.
func floatToInt(f float64, errs *EvalErrors) (int64, bool) {
	f = math.Round(f)
	if math.IsNaN(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
		errs.record(errIntRange)
		return 0, false
	}
	return int64(f), true
}

// ---- Booleans, comparisons and predicates -------------------------------
