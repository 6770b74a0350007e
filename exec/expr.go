package exec

import (
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

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

// SQLSTATE codes of runtime failures that sqlerr does not name.
const (
	codeOutOfRange      = "22003" // numeric_value_out_of_range
	codeInvalidText     = "22P02" // invalid_text_representation
	codeInvalidLog      = "2201E" // invalid_argument_for_logarithm
	codeInvalidPower    = "2201F" // invalid_argument_for_power_function
	codeSubstringError  = "22011" // substring_error
	codeInvalidEscape   = "22025" // invalid_escape_sequence
	codeTimestampRange  = "22008" // datetime_field_overflow
	codeCannotCoerce    = "42846" // cannot_coerce
	codeInvalidArgument = sqlerr.InvalidParameter
)

// Preallocated runtime errors, so the error path of hot operators does not
// allocate.
var (
	errDivZero     = sqlerr.New(sqlerr.DivisionByZero, "division by zero")
	errIntRange    = sqlerr.New(codeOutOfRange, "bigint out of range")
	errSqrtNeg     = sqlerr.New(codeInvalidPower, "cannot take square root of a negative number")
	errLogZero     = sqlerr.New(codeInvalidLog, "cannot take logarithm of zero")
	errLogNeg      = sqlerr.New(codeInvalidLog, "cannot take logarithm of a negative number")
	errPowZeroNeg  = sqlerr.New(codeInvalidPower, "zero raised to a negative power is undefined")
	errPowComplex  = sqlerr.New(codeInvalidPower, "a negative number raised to a non-integer power yields a complex result")
	errNegSubstr   = sqlerr.New(codeSubstringError, "negative substring length not allowed")
	errSplitZero   = sqlerr.New(codeInvalidArgument, "field position must not be zero")
	errTSRange     = sqlerr.New(codeTimestampRange, "timestamp out of range")
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
	f, ok := planner.LookupFunc(e.Fn)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s is not known to exec", e.Fn)
	}
	if f.Volatile {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "%s() cannot be evaluated in a continuous query: it is not deterministic", e.Fn)
	}
	switch e.Fn {
	case "+", "-", "*", "/", "%", "neg":
		switch e.T {
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
	case "coalesce":
		return c.compileCoalesce(e)
	case "greatest", "least":
		return c.compileExtreme(e)
	case "nullif":
		return c.compileNullif(e)
	case "concat", "||":
		return c.compileConcat(e)
	case "extract", "date_trunc":
		return c.compileTimeUnit(e)
	}
	return c.compileStrict(e)
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

func isIntArith(e *planner.Call) bool {
	switch e.Fn {
	case "+", "-", "*", "/", "%", "neg":
	default:
		return false
	}
	for _, a := range e.Args {
		if k := a.Type(); k != types.Int && k != types.Null {
			return false
		}
	}
	return e.T == types.Int
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
	l, err := c.compileInt(e.Args[0])
	if err != nil {
		return nil, err
	}
	r, err := c.compileInt(e.Args[1])
	if err != nil {
		return nil, err
	}
	op := e.Fn[0]
	return func(row types.Row) (int64, bool) {
		a, ok := l(row)
		if !ok {
			return 0, false
		}
		b, ok := r(row)
		if !ok {
			return 0, false
		}
		return intOp(op, a, b, errs)
	}, nil
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
	op := e.Fn[0]
	return func(r types.Row) (int64, bool) {
		if uint(i) >= uint(len(r)) || r[i].K == types.Null {
			return 0, false
		}
		return intOp(op, r[i].I, b, errs)
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

// intOp applies an arithmetic operator to two BIGINTs with Postgres
// semantics: overflow is an error, `/` truncates toward zero and `%` takes
// the sign of the dividend.
func intOp(op byte, a, b int64, errs *EvalErrors) (int64, bool) {
	switch op {
	case '+':
		s := a + b
		if (s > a) != (b > 0) {
			errs.record(errIntRange)
			return 0, false
		}
		return s, true
	case '-':
		d := a - b
		if (d < a) != (b > 0) {
			errs.record(errIntRange)
			return 0, false
		}
		return d, true
	case '*':
		m := a * b
		if a != 0 && (m/a != b || (a == -1 && b == math.MinInt64)) {
			errs.record(errIntRange)
			return 0, false
		}
		return m, true
	case '/':
		if b == 0 {
			errs.record(errDivZero)
			return 0, false
		}
		if a == math.MinInt64 && b == -1 {
			errs.record(errIntRange)
			return 0, false
		}
		return a / b, true
	case '%':
		if b == 0 {
			errs.record(errDivZero)
			return 0, false
		}
		if b == -1 {
			return 0, true
		}
		return a % b, true
	}
	return 0, false
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

func isNumArith(e *planner.Call) bool {
	switch e.Fn {
	case "+", "-", "*", "/", "%", "neg":
	default:
		return false
	}
	for _, a := range e.Args {
		if k := a.Type(); k != types.Int && k != types.Float && k != types.Null {
			return false
		}
	}
	return true
}

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
	l, err := c.compileFloat(e.Args[0])
	if err != nil {
		return nil, err
	}
	r, err := c.compileFloat(e.Args[1])
	if err != nil {
		return nil, err
	}
	return func(row types.Row) (float64, bool) {
		a, ok := l(row)
		if !ok {
			return 0, false
		}
		b, ok := r(row)
		if !ok {
			return 0, false
		}
		return floatOp(op, a, b, errs)
	}, nil
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

func floatOp(op byte, a, b float64, errs *EvalErrors) (float64, bool) {
	switch op {
	case '+':
		return a + b, true
	case '-':
		return a - b, true
	case '*':
		return a * b, true
	case '/':
		if b == 0 {
			errs.record(errDivZero)
			return 0, false
		}
		return a / b, true
	case '%':
		if b == 0 {
			errs.record(errDivZero)
			return 0, false
		}
		return math.Mod(a, b), true
	}
	return 0, false
}

// ---- Timestamp and interval arithmetic ----------------------------------

func (c *compiler) compileTimeArith(e *planner.Call) (Evaluator, error) {
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	errs, out, op := c.errs, e.T, e.Fn
	if op == "neg" {
		x := args[0]
		return func(r types.Row) types.Value {
			v := x(r)
			if v.K == types.Null {
				return v
			}
			if v.I == math.MinInt64 {
				errs.record(errIntRange)
				return types.NullValue
			}
			return types.Value{K: out, I: -v.I}
		}, nil
	}
	l, rr := args[0], args[1]
	return func(r types.Row) types.Value {
		a := l(r)
		if a.K == types.Null {
			return a
		}
		b := rr(r)
		if b.K == types.Null {
			return b
		}
		x, ok := timeOp(op, a, b, errs)
		if !ok {
			return types.NullValue
		}
		return types.Value{K: out, I: x}
	}, nil
}

// timeOp computes timestamp and interval arithmetic in microseconds;
// intervals scale by numbers, rounding to the microsecond.
func timeOp(op string, a, b types.Value, errs *EvalErrors) (int64, bool) {
	if a.K != types.Interval && b.K == types.Interval && op == "*" {
		a, b = b, a
	}
	switch op {
	case "+":
		return intOp('+', a.I, b.I, errs)
	case "-":
		return intOp('-', a.I, b.I, errs)
	case "*", "/":
		if b.K == types.Int {
			return intOp(op[0], a.I, b.I, errs)
		}
		f := b.F
		if op == "/" {
			if f == 0 {
				errs.record(errDivZero)
				return 0, false
			}
			f = 1 / f
		}
		return floatToInt(float64(a.I)*f, errs)
	}
	return 0, false
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

func (c *compiler) filter(s planner.Scalar) (func(types.Row) bool, error) {
	if e, ok := s.(*planner.Call); ok && (e.Fn == "and" || e.Fn == "or") {
		l, err := c.filter(e.Args[0])
		if err != nil {
			return nil, err
		}
		r, err := c.filter(e.Args[1])
		if err != nil {
			return nil, err
		}
		// At the top of a filter NULL is false, and for AND and OR
		// that is the same as evaluating three-valued logic first.
		if e.Fn == "and" {
			return func(row types.Row) bool { return l(row) && r(row) }, nil
		}
		return func(row types.Row) bool { return l(row) || r(row) }, nil
	}
	if e, ok := s.(*planner.Call); ok && cmpTruth[e.Fn] != ([3]bool{}) {
		if f := fusedIntFilter(e); f != nil {
			return f, nil
		}
	}
	be, err := c.compileBool(s)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) bool {
		v, ok := be(r)
		return v && ok
	}, nil
}

func (c *compiler) compileBool(s planner.Scalar) (boolEval, error) {
	if e, ok := s.(*planner.Call); ok {
		switch e.Fn {
		case "=", "<>", "<", "<=", ">", ">=":
			return c.compileCmp(e)
		case "and", "or":
			return c.compileLogic(e)
		case "not":
			x, err := c.compileBool(e.Args[0])
			if err != nil {
				return nil, err
			}
			return func(r types.Row) (bool, bool) {
				v, ok := x(r)
				return !v, ok
			}, nil
		case "is_null", "is_not_null":
			return c.compileIsNull(e)
		case "is_true", "is_not_true", "is_false", "is_not_false":
			return c.compileIsTruth(e)
		case "is_not_distinct_from":
			return c.compileNotDistinct(e)
		case "in":
			return c.compileIn(e)
		case "like", "ilike":
			return c.compileLike(e)
		}
	}
	ev, err := c.compile(s)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) (bool, bool) {
		v := ev(r)
		return v.I != 0, v.K != types.Null
	}, nil
}

// cmpTruth[op][sign+1] is the result of comparison op for a three-way
// comparison result sign.
var cmpTruth = map[string][3]bool{
	"=":  {false, true, false},
	"<>": {true, false, true},
	"<":  {true, false, false},
	"<=": {true, true, false},
	">":  {false, false, true},
	">=": {false, true, true},
}

func cmp3Int(a, b int64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// intCmpShape recognises `column <cmp> k` and `column % m <cmp> k` (or
// `/ m`) on BIGINTs with a constant k, the hot filter shapes, so that they
// compile to a single closure.
func intCmpShape(e *planner.Call) (col int, fn string, m, k int64, ok bool) {
	kc, isConst := e.Args[1].(*planner.Const)
	if !isConst || kc.V.K != types.Int {
		return 0, "", 0, 0, false
	}
	switch l := e.Args[0].(type) {
	case *planner.ColRef:
		if l.T == types.Int {
			return l.Index, "", 0, kc.V.I, true
		}
	case *planner.Call:
		if i, m, ok := pureColConst(l); ok {
			return i, l.Fn, m, kc.V.I, true
		}
	}
	return 0, "", 0, 0, false
}

// fusedIntCmp compiles an intCmpShape comparison to a boolEval.
func fusedIntCmp(e *planner.Call) boolEval {
	i, fn, m, k, ok := intCmpShape(e)
	if !ok {
		return nil
	}
	truth := cmpTruth[e.Fn]
	switch fn {
	case "%":
		return func(r types.Row) (bool, bool) {
			if uint(i) >= uint(len(r)) || r[i].K == types.Null {
				return false, false
			}
			return truth[cmp3Int(r[i].I%m, k)+1], true
		}
	case "/":
		return func(r types.Row) (bool, bool) {
			if uint(i) >= uint(len(r)) || r[i].K == types.Null {
				return false, false
			}
			return truth[cmp3Int(r[i].I/m, k)+1], true
		}
	}
	return func(r types.Row) (bool, bool) {
		if uint(i) >= uint(len(r)) || r[i].K == types.Null {
			return false, false
		}
		return truth[cmp3Int(r[i].I, k)+1], true
	}
}

// fusedIntFilter is fusedIntCmp for the top of a filter, where NULL is
// false.
func fusedIntFilter(e *planner.Call) func(types.Row) bool {
	i, fn, m, k, ok := intCmpShape(e)
	if !ok {
		return nil
	}
	truth := cmpTruth[e.Fn]
	switch fn {
	case "%":
		return func(r types.Row) bool {
			return uint(i) < uint(len(r)) && r[i].K != types.Null && truth[cmp3Int(r[i].I%m, k)+1]
		}
	case "/":
		return func(r types.Row) bool {
			return uint(i) < uint(len(r)) && r[i].K != types.Null && truth[cmp3Int(r[i].I/m, k)+1]
		}
	}
	return func(r types.Row) bool {
		return uint(i) < uint(len(r)) && r[i].K != types.Null && truth[cmp3Int(r[i].I, k)+1]
	}
}

func (c *compiler) compileCmp(e *planner.Call) (boolEval, error) {
	if be := fusedIntCmp(e); be != nil {
		return be, nil
	}
	truth := cmpTruth[e.Fn]
	lk, rk := e.Args[0].Type(), e.Args[1].Type()
	intLike := func(k types.Kind) bool { return k == types.Int || k == types.Null }
	switch {
	case intLike(lk) && intLike(rk):
		l, err := c.compileInt(e.Args[0])
		if err != nil {
			return nil, err
		}
		if k, ok := e.Args[1].(*planner.Const); ok && k.V.K == types.Int {
			b := k.V.I
			return func(r types.Row) (bool, bool) {
				a, ok := l(r)
				return truth[cmp3Int(a, b)+1], ok
			}, nil
		}
		rr, err := c.compileInt(e.Args[1])
		if err != nil {
			return nil, err
		}
		return func(r types.Row) (bool, bool) {
			a, ok := l(r)
			if !ok {
				return false, false
			}
			b, ok := rr(r)
			return truth[cmp3Int(a, b)+1], ok
		}, nil
	case (lk == types.Float || rk == types.Float) && (intLike(lk) || lk == types.Float) && (intLike(rk) || rk == types.Float):
		l, err := c.compileFloat(e.Args[0])
		if err != nil {
			return nil, err
		}
		rr, err := c.compileFloat(e.Args[1])
		if err != nil {
			return nil, err
		}
		return func(r types.Row) (bool, bool) {
			a, ok := l(r)
			if !ok {
				return false, false
			}
			b, ok := rr(r)
			return truth[types.Compare(types.FloatValue(a), types.FloatValue(b))+1], ok
		}, nil
	}
	l, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	rr, err := c.compile(e.Args[1])
	if err != nil {
		return nil, err
	}
	return func(r types.Row) (bool, bool) {
		a := l(r)
		if a.K == types.Null {
			return false, false
		}
		b := rr(r)
		if b.K == types.Null {
			return false, false
		}
		return truth[types.Compare(a, b)+1], true
	}, nil
}

// compileLogic implements three-valued AND and OR: FALSE AND NULL is
// FALSE, TRUE OR NULL is TRUE, otherwise NULL wins over the other value.
func (c *compiler) compileLogic(e *planner.Call) (boolEval, error) {
	l, err := c.compileBool(e.Args[0])
	if err != nil {
		return nil, err
	}
	r, err := c.compileBool(e.Args[1])
	if err != nil {
		return nil, err
	}
	// dominant is the value that decides the result alone.
	dominant := e.Fn == "or"
	return func(row types.Row) (bool, bool) {
		a, aok := l(row)
		if aok && a == dominant {
			return dominant, true
		}
		b, bok := r(row)
		if bok && b == dominant {
			return dominant, true
		}
		return !dominant, aok && bok
	}, nil
}

func (c *compiler) compileIsNull(e *planner.Call) (boolEval, error) {
	x, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	want := e.Fn == "is_null"
	return func(r types.Row) (bool, bool) { return (x(r).K == types.Null) == want, true }, nil
}

func (c *compiler) compileIsTruth(e *planner.Call) (boolEval, error) {
	x, err := c.compileBool(e.Args[0])
	if err != nil {
		return nil, err
	}
	target := e.Fn == "is_true" || e.Fn == "is_not_true"
	negate := strings.HasPrefix(e.Fn, "is_not_")
	return func(r types.Row) (bool, bool) {
		v, ok := x(r)
		return (ok && v == target) != negate, true
	}, nil
}

func (c *compiler) compileNotDistinct(e *planner.Call) (boolEval, error) {
	l, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	r, err := c.compile(e.Args[1])
	if err != nil {
		return nil, err
	}
	return func(row types.Row) (bool, bool) {
		a, b := l(row), r(row)
		if a.K == types.Null || b.K == types.Null {
			return a.K == b.K, true
		}
		return types.Compare(a, b) == 0, true
	}, nil
}

// compileIn implements x IN (list): TRUE on a match, else NULL if x or any
// item is NULL, else FALSE.
func (c *compiler) compileIn(e *planner.Call) (boolEval, error) {
	x, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	allConst := true
	consts := make([]types.Value, 0, len(e.Args)-1)
	for _, a := range e.Args[1:] {
		k, ok := a.(*planner.Const)
		if !ok {
			allConst = false
			break
		}
		consts = append(consts, k.V)
	}
	if allConst {
		return func(r types.Row) (bool, bool) {
			v := x(r)
			if v.K == types.Null {
				return false, false
			}
			sawNull := false
			for _, k := range consts {
				if k.K == types.Null {
					sawNull = true
				} else if types.Compare(v, k) == 0 {
					return true, true
				}
			}
			return false, !sawNull
		}, nil
	}
	items, err := c.compileAll(e.Args[1:])
	if err != nil {
		return nil, err
	}
	return func(r types.Row) (bool, bool) {
		v := x(r)
		if v.K == types.Null {
			return false, false
		}
		sawNull := false
		for _, it := range items {
			k := it(r)
			if k.K == types.Null {
				sawNull = true
			} else if types.Compare(v, k) == 0 {
				return true, true
			}
		}
		return false, !sawNull
	}, nil
}

// ---- LIKE ---------------------------------------------------------------

type likeTok struct {
	kind byte // 'l' literal rune, '_' one rune, '%' any runes
	r    rune
}

// parseLike tokenises a LIKE pattern; esc < 0 means no escape character.
func parseLike(p string, esc rune) ([]likeTok, *sqlerr.Error) {
	toks := make([]likeTok, 0, len(p))
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRuneInString(p[i:])
		i += n
		switch {
		case r == esc:
			if i >= len(p) {
				return nil, errLikeEscape
			}
			r, n = utf8.DecodeRuneInString(p[i:])
			i += n
			toks = append(toks, likeTok{'l', r})
		case r == '%':
			if len(toks) == 0 || toks[len(toks)-1].kind != '%' {
				toks = append(toks, likeTok{kind: '%'})
			}
		case r == '_':
			toks = append(toks, likeTok{kind: '_'})
		default:
			toks = append(toks, likeTok{'l', r})
		}
	}
	return toks, nil
}

// likeMatch matches s against a tokenised pattern, backtracking to the
// last % only (linear for patterns with one %).
func likeMatch(s string, p []likeTok) bool {
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			t := p[pi]
			if t.kind == '%' {
				starP, starS = pi, si
				pi++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[si:])
			if t.kind == '_' || t.r == r {
				si += n
				pi++
				continue
			}
		}
		if starP < 0 {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		si, pi = starS, starP+1
	}
	for pi < len(p) && p[pi].kind == '%' {
		pi++
	}
	return pi == len(p)
}

// likeMatcher returns a fast matcher for a constant pattern: plain
// equality, prefix, suffix and substring patterns avoid the general
// matcher.
func likeMatcher(toks []likeTok) func(string) bool {
	var lit strings.Builder
	first, last := -1, -1
	simple := true
	for i, t := range toks {
		switch t.kind {
		case 'l':
			lit.WriteRune(t.r)
		case '_':
			simple = false
		case '%':
			if i != 0 && i != len(toks)-1 {
				simple = false
			}
			if i == 0 {
				first = i
			} else {
				last = i
			}
		}
	}
	if len(toks) == 1 && toks[0].kind == '%' {
		return func(string) bool { return true }
	}
	if simple {
		l := lit.String()
		switch {
		case first < 0 && last < 0:
			return func(s string) bool { return s == l }
		case first == 0 && last < 0:
			return func(s string) bool { return strings.HasSuffix(s, l) }
		case first < 0:
			return func(s string) bool { return strings.HasPrefix(s, l) }
		default:
			return func(s string) bool { return strings.Contains(s, l) }
		}
	}
	return func(s string) bool { return likeMatch(s, toks) }
}

func escapeRune(v types.Value) (rune, *sqlerr.Error) {
	switch utf8.RuneCountInString(v.S) {
	case 0:
		return -1, nil
	case 1:
		r, _ := utf8.DecodeRuneInString(v.S)
		return r, nil
	}
	return 0, errEscapeChars
}

func (c *compiler) compileLike(e *planner.Call) (boolEval, error) {
	fold := e.Fn == "ilike"
	x, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	esc, constEsc := rune('\\'), true
	if len(e.Args) == 3 {
		k, ok := e.Args[2].(*planner.Const)
		constEsc = ok
		if ok && k.V.K == types.String {
			r, eerr := escapeRune(k.V)
			if eerr != nil {
				return nil, eerr
			}
			esc = r
		}
	}
	if k, ok := e.Args[1].(*planner.Const); ok && constEsc && k.V.K == types.String {
		pat := k.V.S
		if fold {
			pat = strings.ToLower(pat)
		}
		toks, perr := parseLike(pat, esc)
		if perr != nil {
			return nil, perr
		}
		m := likeMatcher(toks)
		return func(r types.Row) (bool, bool) {
			v := x(r)
			if v.K == types.Null {
				return false, false
			}
			s := v.S
			if fold {
				s = strings.ToLower(s)
			}
			return m(s), true
		}, nil
	}
	args, err := c.compileAll(e.Args[1:])
	if err != nil {
		return nil, err
	}
	errs := c.errs
	return func(r types.Row) (bool, bool) {
		v, p := x(r), args[0](r)
		if v.K == types.Null || p.K == types.Null {
			return false, false
		}
		esc := rune('\\')
		if len(args) == 2 {
			ev := args[1](r)
			if ev.K == types.Null {
				return false, false
			}
			var eerr *sqlerr.Error
			if esc, eerr = escapeRune(ev); eerr != nil {
				errs.record(eerr)
				return false, false
			}
		}
		s, pat := v.S, p.S
		if fold {
			s, pat = strings.ToLower(s), strings.ToLower(pat)
		}
		toks, perr := parseLike(pat, esc)
		if perr != nil {
			errs.record(perr)
			return false, false
		}
		return likeMatch(s, toks), true
	}, nil
}

// ---- CASE, casts and conditional functions ------------------------------

func (c *compiler) compileCase(e *planner.Case) (Evaluator, error) {
	results := make([]Evaluator, len(e.Whens))
	for i, w := range e.Whens {
		ev, err := c.compile(w.Result)
		if err != nil {
			return nil, err
		}
		results[i] = ev
	}
	els := func(types.Row) types.Value { return types.NullValue }
	if e.Else != nil {
		ev, err := c.compile(e.Else)
		if err != nil {
			return nil, err
		}
		els = ev
	}
	if e.Operand != nil {
		op, err := c.compile(e.Operand)
		if err != nil {
			return nil, err
		}
		whens := make([]Evaluator, len(e.Whens))
		for i, w := range e.Whens {
			if whens[i], err = c.compile(w.Cond); err != nil {
				return nil, err
			}
		}
		return func(r types.Row) types.Value {
			v := op(r)
			if v.K != types.Null {
				for i, w := range whens {
					if x := w(r); x.K != types.Null && types.Compare(v, x) == 0 {
						return results[i](r)
					}
				}
			}
			return els(r)
		}, nil
	}
	conds := make([]boolEval, len(e.Whens))
	for i, w := range e.Whens {
		be, err := c.compileBool(w.Cond)
		if err != nil {
			return nil, err
		}
		conds[i] = be
	}
	return func(r types.Row) types.Value {
		for i, cond := range conds {
			if v, ok := cond(r); v && ok {
				return results[i](r)
			}
		}
		return els(r)
	}, nil
}

func (c *compiler) compileCast(e *planner.Cast) (Evaluator, error) {
	if e.Arg.Type() == e.To {
		return c.compile(e.Arg)
	}
	if !planner.CanCast(e.Arg.Type(), e.To) {
		return nil, sqlerr.New(codeCannotCoerce, "cannot cast type %s to %s",
			strings.ToLower(e.Arg.Type().String()), strings.ToLower(e.To.String()))
	}
	if e.To == types.Float && e.Arg.Type() == types.Int {
		fe, err := c.compileFloat(e)
		return fromFloat(fe), err
	}
	x, err := c.compile(e.Arg)
	if err != nil {
		return nil, err
	}
	to, errs := e.To, c.errs
	return func(r types.Row) types.Value {
		v, cerr := castValue(x(r), to)
		if cerr != nil {
			errs.record(cerr)
			return types.NullValue
		}
		return v
	}, nil
}

// textOf formats v as a cast to VARCHAR does (booleans as true/false).
func textOf(v types.Value) string {
	if v.K == types.Bool {
		if v.I != 0 {
			return "true"
		}
		return "false"
	}
	return v.String()
}

// castValue converts v to kind to with Postgres rules: text parses
// (timestamps via types.ParseTimestamp), DOUBLE to BIGINT rounds half away
// from zero, booleans read t/f/true/false/yes/no/on/off/1/0.
func castValue(v types.Value, to types.Kind) (types.Value, *sqlerr.Error) {
	if v.K == types.Null || v.K == to {
		return v, nil
	}
	switch to {
	case types.String:
		return types.StringValue(textOf(v)), nil
	case types.Int:
		switch v.K {
		case types.Float:
			if i, ok := floatToInt(v.F, nil); ok {
				return types.IntValue(i), nil
			}
			return types.NullValue, errIntRange
		case types.Bool:
			return types.IntValue(v.I), nil
		case types.String:
			if i, err := strconv.ParseInt(strings.TrimSpace(v.S), 10, 64); err == nil {
				return types.IntValue(i), nil
			}
		}
	case types.Float:
		switch v.K {
		case types.Int:
			return types.FloatValue(float64(v.I)), nil
		case types.String:
			if f, err := strconv.ParseFloat(strings.TrimSpace(v.S), 64); err == nil {
				return types.FloatValue(f), nil
			}
		}
	case types.Bool:
		switch v.K {
		case types.Int:
			return types.BoolValue(v.I != 0), nil
		case types.String:
			if b, ok := planner.ParseBool(v.S); ok {
				return types.BoolValue(b), nil
			}
		}
	case types.Timestamp:
		if v.K == types.String {
			us, err := types.ParseTimestamp(v.S)
			if err != nil {
				return types.NullValue, &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type timestamp: '" + v.S + "'", Err: err}
			}
			return types.TimestampValue(us), nil
		}
	case types.Interval:
		if v.K == types.String {
			us, err := types.ParseInterval(v.S)
			if err != nil {
				return types.NullValue, &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type interval: '" + v.S + "'", Err: err}
			}
			return types.IntervalValue(us), nil
		}
	}
	if v.K == types.String {
		return types.NullValue, sqlerr.New(codeInvalidText, "invalid input syntax for type %s: '%s'", strings.ToLower(to.String()), v.S)
	}
	return types.NullValue, sqlerr.New(codeCannotCoerce, "cannot cast type %s to %s", strings.ToLower(v.K.String()), strings.ToLower(to.String()))
}

func (c *compiler) compileCoalesce(e *planner.Call) (Evaluator, error) {
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) types.Value {
		for _, a := range args {
			if v := a(r); v.K != types.Null {
				return v
			}
		}
		return types.NullValue
	}, nil
}

// compileExtreme implements GREATEST and LEAST, which ignore NULLs.
func (c *compiler) compileExtreme(e *planner.Call) (Evaluator, error) {
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	sign := 1
	if e.Fn == "least" {
		sign = -1
	}
	return func(r types.Row) types.Value {
		best := types.NullValue
		for _, a := range args {
			v := a(r)
			if v.K != types.Null && (best.K == types.Null || types.Compare(v, best)*sign > 0) {
				best = v
			}
		}
		return best
	}, nil
}

func (c *compiler) compileNullif(e *planner.Call) (Evaluator, error) {
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) types.Value {
		a := args[0](r)
		if a.K == types.Null {
			return a
		}
		if b := args[1](r); b.K != types.Null && types.Compare(a, b) == 0 {
			return types.NullValue
		}
		return a
	}, nil
}

// compileConcat implements CONCAT and ||: NULL when any argument is NULL
// (Flink and MySQL), other kinds formatted as text.
func (c *compiler) compileConcat(e *planner.Call) (Evaluator, error) {
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) types.Value {
		var b strings.Builder
		for _, a := range args {
			v := a(r)
			if v.K == types.Null {
				return types.NullValue
			}
			if v.K == types.String {
				b.WriteString(v.S)
			} else {
				b.WriteString(textOf(v))
			}
		}
		return types.StringValue(b.String())
	}, nil
}

// ---- Strict scalar functions --------------------------------------------

// fnImpl evaluates a strict function on non-NULL arguments; one of the
// three fields is set, by arity.
type fnImpl struct {
	f1 func(a types.Value) (types.Value, *sqlerr.Error)
	f2 func(a, b types.Value) (types.Value, *sqlerr.Error)
	f3 func(a, b, c types.Value) (types.Value, *sqlerr.Error)
}

func okv(v types.Value) (types.Value, *sqlerr.Error) { return v, nil }

func str1(f func(string) string) fnImpl {
	return fnImpl{f1: func(a types.Value) (types.Value, *sqlerr.Error) { return okv(types.StringValue(f(a.S))) }}
}

func flt1(f func(float64) (float64, *sqlerr.Error)) fnImpl {
	return fnImpl{f1: func(a types.Value) (types.Value, *sqlerr.Error) {
		x, err := f(a.F)
		return types.FloatValue(x), err
	}}
}

func num1(fi func(int64) (int64, *sqlerr.Error), ff func(float64) float64) fnImpl {
	return fnImpl{f1: func(a types.Value) (types.Value, *sqlerr.Error) {
		if a.K == types.Int {
			x, err := fi(a.I)
			return types.IntValue(x), err
		}
		return okv(types.FloatValue(ff(a.F)))
	}}
}

func intIdentity(i int64) (int64, *sqlerr.Error) { return i, nil }

func logOf(f func(float64) float64) func(float64) (float64, *sqlerr.Error) {
	return func(x float64) (float64, *sqlerr.Error) {
		switch {
		case x == 0:
			return 0, errLogZero
		case x < 0:
			return 0, errLogNeg
		}
		return f(x), nil
	}
}

var fnImpls = map[string]fnImpl{
	"lower": str1(strings.ToLower),
	"upper": str1(strings.ToUpper),
	"length": {f1: func(a types.Value) (types.Value, *sqlerr.Error) {
		return okv(types.IntValue(int64(utf8.RuneCountInString(a.S))))
	}},
	"substr": {
		f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
			return okv(types.StringValue(substr(a.S, b.I, math.MaxInt64)))
		},
		f3: func(a, b, c types.Value) (types.Value, *sqlerr.Error) {
			if c.I < 0 {
				return types.NullValue, errNegSubstr
			}
			return okv(types.StringValue(substr(a.S, b.I, c.I)))
		},
	},
	"trim":  trimFn(strings.Trim),
	"ltrim": trimFn(strings.TrimLeft),
	"rtrim": trimFn(strings.TrimRight),
	"replace": {f3: func(a, b, c types.Value) (types.Value, *sqlerr.Error) {
		if b.S == "" {
			return a, nil
		}
		return okv(types.StringValue(strings.ReplaceAll(a.S, b.S, c.S)))
	}},
	"strpos": {f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
		i := strings.Index(a.S, b.S)
		if i < 0 {
			return okv(types.IntValue(0))
		}
		return okv(types.IntValue(int64(utf8.RuneCountInString(a.S[:i])) + 1))
	}},
	"split_part": {f3: splitPart},
	"left": {f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
		n := int64(utf8.RuneCountInString(a.S))
		k := b.I
		if k < 0 {
			k = max(n+k, 0)
		}
		return okv(types.StringValue(substr(a.S, 1, k)))
	}},
	"right": {f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
		n := int64(utf8.RuneCountInString(a.S))
		k := b.I
		if k < 0 {
			k = max(n+k, 0)
		}
		k = min(k, n)
		return okv(types.StringValue(substr(a.S, n-k+1, k)))
	}},
	"abs": num1(func(i int64) (int64, *sqlerr.Error) {
		if i == math.MinInt64 {
			return 0, errIntRange
		}
		if i < 0 {
			return -i, nil
		}
		return i, nil
	}, math.Abs),
	"floor": num1(intIdentity, math.Floor),
	"ceil":  num1(intIdentity, math.Ceil),
	"sign": num1(func(i int64) (int64, *sqlerr.Error) { return int64(cmp3Int(i, 0)), nil }, func(f float64) float64 {
		switch {
		case f > 0:
			return 1
		case f < 0:
			return -1
		}
		return f
	}),
	"round": {
		f1: num1(intIdentity, math.Round).f1,
		f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
			p := math.Pow10(int(max(min(b.I, 400), -400)))
			x := math.Round(a.F*p) / p
			if math.IsInf(x, 0) || math.IsNaN(x) {
				x = a.F
			}
			return okv(types.FloatValue(x))
		},
	},
	"power": {f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
		switch {
		case a.F == 0 && b.F < 0:
			return types.NullValue, errPowZeroNeg
		case a.F < 0 && b.F != math.Trunc(b.F):
			return types.NullValue, errPowComplex
		}
		return okv(types.FloatValue(math.Pow(a.F, b.F)))
	}},
	"sqrt": flt1(func(x float64) (float64, *sqlerr.Error) {
		if x < 0 {
			return 0, errSqrtNeg
		}
		return math.Sqrt(x), nil
	}),
	"ln":    flt1(logOf(math.Log)),
	"log10": flt1(logOf(math.Log10)),
	"exp":   flt1(func(x float64) (float64, *sqlerr.Error) { return math.Exp(x), nil }),
	"log": {
		f1: flt1(logOf(math.Log10)).f1,
		f2: func(b, x types.Value) (types.Value, *sqlerr.Error) {
			lb, err := logOf(math.Log)(b.F)
			if err != nil {
				return types.NullValue, err
			}
			lx, err := logOf(math.Log)(x.F)
			if err != nil {
				return types.NullValue, err
			}
			if lb == 0 {
				return types.NullValue, errDivZero
			}
			return okv(types.FloatValue(lx / lb))
		},
	},
	"to_timestamp": {f1: func(a types.Value) (types.Value, *sqlerr.Error) {
		f := math.Round(a.F * 1e6)
		if math.IsNaN(f) || f < -9.2e18 || f > 9.2e18 {
			return types.NullValue, errTSRange
		}
		return okv(types.TimestampValue(int64(f)))
	}},
}

func trimFn(f func(string, string) string) fnImpl {
	return fnImpl{
		f1: func(a types.Value) (types.Value, *sqlerr.Error) { return okv(types.StringValue(f(a.S, " "))) },
		f2: func(a, b types.Value) (types.Value, *sqlerr.Error) { return okv(types.StringValue(f(a.S, b.S))) },
	}
}

// substr returns count runes of s from 1-based position start, as
// Postgres's SUBSTR does (a start below 1 eats into the count).
func substr(s string, start, count int64) string {
	end := int64(math.MaxInt64)
	if count < math.MaxInt64-start {
		end = start + count
	}
	start = max(start, 1)
	if end <= start {
		return ""
	}
	from, to := -1, len(s)
	pos := int64(1)
	for i := range s {
		if pos == start {
			from = i
		}
		if pos == end {
			to = i
			break
		}
		pos++
	}
	if from < 0 {
		return ""
	}
	return s[from:to]
}

func splitPart(a, b, c types.Value) (types.Value, *sqlerr.Error) {
	n := c.I
	if n == 0 {
		return types.NullValue, errSplitZero
	}
	var parts []string
	if b.S == "" {
		parts = []string{a.S}
		if a.S == "" {
			parts = nil
		}
	} else {
		parts = strings.Split(a.S, b.S)
	}
	idx := n - 1
	if n < 0 {
		idx = int64(len(parts)) + n
	}
	if idx < 0 || idx >= int64(len(parts)) {
		return okv(types.StringValue(""))
	}
	return okv(types.StringValue(parts[idx]))
}

// compileStrict compiles a strict function from fnImpls: NULL in, NULL
// out; a returned error is counted and yields NULL.
func (c *compiler) compileStrict(e *planner.Call) (Evaluator, error) {
	impl, found := fnImpls[e.Fn]
	if !found {
		return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s is not implemented in exec", e.Fn)
	}
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	errs := c.errs
	done := func(v types.Value, err *sqlerr.Error) types.Value {
		if err != nil {
			errs.record(err)
			return types.NullValue
		}
		return v
	}
	switch {
	case len(args) == 1 && impl.f1 != nil:
		f, x := impl.f1, args[0]
		return func(r types.Row) types.Value {
			a := x(r)
			if a.K == types.Null {
				return a
			}
			return done(f(a))
		}, nil
	case len(args) == 2 && impl.f2 != nil:
		f, x, y := impl.f2, args[0], args[1]
		return func(r types.Row) types.Value {
			a, b := x(r), y(r)
			if a.K == types.Null || b.K == types.Null {
				return types.NullValue
			}
			return done(f(a, b))
		}, nil
	case len(args) == 3 && impl.f3 != nil:
		f, x, y, z := impl.f3, args[0], args[1], args[2]
		return func(r types.Row) types.Value {
			a, b, cc := x(r), y(r), z(r)
			if a.K == types.Null || b.K == types.Null || cc.K == types.Null {
				return types.NullValue
			}
			return done(f(a, b, cc))
		}, nil
	}
	return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s does not take %d arguments", e.Fn, len(args))
}

// ---- EXTRACT and DATE_TRUNC ---------------------------------------------

func tsFloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func tsFloorMod(a, b int64) int64 { return a - tsFloorDiv(a, b)*b }

func tsUTC(us int64) time.Time { return time.UnixMicro(us).UTC() }

// extractFn returns the field extractor for a normalised unit.
func extractFn(unit string) func(us int64) types.Value {
	switch unit {
	case "microseconds":
		return func(us int64) types.Value { return types.IntValue(tsFloorMod(us, types.Minute)) }
	case "milliseconds":
		return func(us int64) types.Value { return types.IntValue(tsFloorMod(us, types.Minute) / types.Millisecond) }
	case "second":
		return func(us int64) types.Value {
			return types.FloatValue(float64(tsFloorMod(us, types.Minute)) / float64(types.Second))
		}
	case "minute":
		return func(us int64) types.Value { return types.IntValue(tsFloorMod(us, types.Hour) / types.Minute) }
	case "hour":
		return func(us int64) types.Value { return types.IntValue(tsFloorMod(us, types.Day) / types.Hour) }
	case "day":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).Day())) }
	case "dow":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).Weekday())) }
	case "isodow":
		return func(us int64) types.Value { return types.IntValue(tsFloorMod(tsFloorDiv(us, types.Day)+3, 7) + 1) }
	case "doy":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).YearDay())) }
	case "week":
		return func(us int64) types.Value { _, w := tsUTC(us).ISOWeek(); return types.IntValue(int64(w)) }
	case "isoyear":
		return func(us int64) types.Value { y, _ := tsUTC(us).ISOWeek(); return types.IntValue(int64(y)) }
	case "month":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).Month())) }
	case "quarter":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).Month()-1)/3 + 1) }
	case "year":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).Year())) }
	case "epoch":
		return func(us int64) types.Value { return types.FloatValue(float64(us) / float64(types.Second)) }
	}
	return nil
}

// truncFn returns the DATE_TRUNC function for a normalised unit; weeks
// start on Monday.
func truncFn(unit string) func(us int64) int64 {
	step := func(d int64) func(int64) int64 {
		return func(us int64) int64 { return us - tsFloorMod(us, d) }
	}
	switch unit {
	case "microseconds":
		return func(us int64) int64 { return us }
	case "milliseconds":
		return step(types.Millisecond)
	case "second":
		return step(types.Second)
	case "minute":
		return step(types.Minute)
	case "hour":
		return step(types.Hour)
	case "day":
		return step(types.Day)
	case "week":
		return func(us int64) int64 {
			d := tsFloorDiv(us, types.Day)
			return (d - tsFloorMod(d+3, 7)) * types.Day
		}
	case "month", "quarter", "year":
		return func(us int64) int64 {
			t := tsUTC(us)
			m := t.Month()
			switch unit {
			case "quarter":
				m = (m-1)/3*3 + 1
			case "year":
				m = 1
			}
			return time.Date(t.Year(), m, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
		}
	}
	return nil
}

func (c *compiler) compileTimeUnit(e *planner.Call) (Evaluator, error) {
	k, isConst := e.Args[0].(*planner.Const)
	if !isConst || k.V.K != types.String {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "the unit of %s must be a constant string", e.Fn)
	}
	unit := planner.NormalizeUnit(k.V.S)
	x, err := c.compile(e.Args[1])
	if err != nil {
		return nil, err
	}
	if e.Fn == "extract" {
		f := extractFn(unit)
		if f == nil {
			return nil, sqlerr.New(codeInvalidArgument, "unit '%s' not supported by EXTRACT", k.V.S)
		}
		return func(r types.Row) types.Value {
			v := x(r)
			if v.K == types.Null {
				return v
			}
			return f(v.I)
		}, nil
	}
	f := truncFn(unit)
	if f == nil {
		return nil, sqlerr.New(codeInvalidArgument, "unit '%s' not supported by DATE_TRUNC", k.V.S)
	}
	return func(r types.Row) types.Value {
		v := x(r)
		if v.K == types.Null {
			return v
		}
		return types.TimestampValue(f(v.I))
	}, nil
}
