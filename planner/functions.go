package planner

import (
	"sort"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Pseudo-kinds that appear only in function signatures, never in values.
const (
	// AnyElement stands for any kind, the same one for every AnyElement
	// argument of a call (Postgres's anyelement). The binder unifies the
	// arguments' kinds (Int with Float gives Float, an untyped string
	// literal takes the other arguments' kind) and an AnyElement result is
	// the unified kind.
	AnyElement types.Kind = 254
	// AnyKind stands for any kind, independently per argument.
	AnyKind types.Kind = 255
)

// Sig is one accepted signature of a function: the argument kinds and the
// result kind. With Variadic the last argument kind may repeat any number
// of times (at least once).
type Sig struct {
	Args     []types.Kind
	Variadic bool
	Result   types.Kind
}

// Func describes one built-in function or operator: its canonical name
// (the Call.Fn the binder emits and exec evaluates), its signatures and
// how it treats NULL.
type Func struct {
	Name string
	Sigs []Sig
	// Strict functions return NULL when any argument is NULL; exec does not
	// call them then. Non-strict ones (AND, OR, COALESCE, IS NULL, ...)
	// see NULL arguments.
	Strict bool
	// MixedNumeric operators take Int and Float operands as they are: the
	// binder inserts no Cast and exec compares or computes across the two.
	// For every other function an Int argument passed where a Float is
	// declared is wrapped in a Cast by the binder.
	MixedNumeric bool
	// Volatile functions (now) give a different answer per call; the
	// planner refuses them in continuous queries.
	Volatile bool
}

var (
	num2 = []Sig{
		{Args: []types.Kind{types.Int, types.Int}, Result: types.Int},
		{Args: []types.Kind{types.Decimal, types.Decimal}, Result: types.Decimal},
		{Args: []types.Kind{types.Float, types.Float}, Result: types.Float},
		{Args: []types.Kind{types.Int, types.Float}, Result: types.Float},
		{Args: []types.Kind{types.Float, types.Int}, Result: types.Float},
	}
	cmp2    = []Sig{{Args: []types.Kind{AnyElement, AnyElement}, Result: types.Bool}}
	bool2   = []Sig{{Args: []types.Kind{types.Bool, types.Bool}, Result: types.Bool}}
	bool1   = []Sig{{Args: []types.Kind{types.Bool}, Result: types.Bool}}
	str1    = []Sig{{Args: []types.Kind{types.String}, Result: types.String}}
	float1  = []Sig{{Args: []types.Kind{types.Float}, Result: types.Float}}
	intFlt1 = []Sig{
		{Args: []types.Kind{types.Int}, Result: types.Int},
		{Args: []types.Kind{types.Decimal}, Result: types.Decimal},
		{Args: []types.Kind{types.Float}, Result: types.Float},
	}
	trimSigs = []Sig{
		{Args: []types.Kind{types.String}, Result: types.String},
		{Args: []types.Kind{types.String, types.String}, Result: types.String},
	}
	anyVariadic = []Sig{{Args: []types.Kind{AnyElement}, Variadic: true, Result: AnyElement}}
)

func sigs(s ...Sig) []Sig { return s }

func with(base []Sig, more ...Sig) []Sig {
	return append(append([]Sig(nil), base...), more...)
}

// Arithmetic operators. Int op Int stays Int (`/` truncates toward zero
// and `%` takes the dividend's sign, as in Postgres); a Decimal operand
// makes the result an exact Decimal (an Int is cast to it) with
// Postgres's result scales (types/decimal.go); a Float operand makes the
// result Float (a Decimal is cast to it). Timestamps and intervals are
// microseconds: timestamp ± interval is a timestamp, timestamp −
// timestamp an interval, and intervals scale by numbers. A date ± an
// integer is a date, date − date the integer count of days between, and
// date ± interval a timestamp (the date is cast). "neg" is unary minus.
var arithmeticFuncs = []*Func{
	{Name: "+", Strict: true, MixedNumeric: true, Sigs: with(num2,
		Sig{Args: []types.Kind{types.Timestamp, types.Interval}, Result: types.Timestamp},
		Sig{Args: []types.Kind{types.Interval, types.Timestamp}, Result: types.Timestamp},
		Sig{Args: []types.Kind{types.Interval, types.Interval}, Result: types.Interval},
		Sig{Args: []types.Kind{types.Date, types.Int}, Result: types.Date},
		Sig{Args: []types.Kind{types.Int, types.Date}, Result: types.Date})},
	{Name: "-", Strict: true, MixedNumeric: true, Sigs: with(num2,
		Sig{Args: []types.Kind{types.Timestamp, types.Interval}, Result: types.Timestamp},
		Sig{Args: []types.Kind{types.Timestamp, types.Timestamp}, Result: types.Interval},
		Sig{Args: []types.Kind{types.Interval, types.Interval}, Result: types.Interval},
		Sig{Args: []types.Kind{types.Date, types.Int}, Result: types.Date},
		Sig{Args: []types.Kind{types.Date, types.Date}, Result: types.Int})},
	{Name: "*", Strict: true, MixedNumeric: true, Sigs: with(num2,
		Sig{Args: []types.Kind{types.Interval, types.Int}, Result: types.Interval},
		Sig{Args: []types.Kind{types.Interval, types.Float}, Result: types.Interval},
		Sig{Args: []types.Kind{types.Int, types.Interval}, Result: types.Interval},
		Sig{Args: []types.Kind{types.Float, types.Interval}, Result: types.Interval})},
	{Name: "/", Strict: true, MixedNumeric: true, Sigs: with(num2,
		Sig{Args: []types.Kind{types.Interval, types.Int}, Result: types.Interval},
		Sig{Args: []types.Kind{types.Interval, types.Float}, Result: types.Interval})},
	{Name: "%", Strict: true, MixedNumeric: true, Sigs: num2},
	{Name: "neg", Strict: true, MixedNumeric: true, Sigs: with(intFlt1,
		Sig{Args: []types.Kind{types.Interval}, Result: types.Interval})},
}

// Comparison and logical operators. Comparisons take two operands of one
// kind (Int and Float compare numerically); "is_not_distinct_from" is
// MySQL's <=> (NULL-safe equality). AND, OR and NOT use three-valued
// logic; the IS tests never return NULL. "in" is `x IN (a, b, ...)` with
// x first; "like"/"ilike" take (string, pattern[, escape]) where the
// default escape is backslash.
var logicFuncs = []*Func{
	{Name: "=", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: "<>", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: "<", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: "<=", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: ">", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: ">=", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: "is_not_distinct_from", MixedNumeric: true, Sigs: cmp2},
	{Name: "and", Sigs: bool2},
	{Name: "or", Sigs: bool2},
	{Name: "not", Strict: true, Sigs: bool1},
	{Name: "is_null", Sigs: sigs(Sig{Args: []types.Kind{AnyKind}, Result: types.Bool})},
	{Name: "is_not_null", Sigs: sigs(Sig{Args: []types.Kind{AnyKind}, Result: types.Bool})},
	{Name: "is_true", Sigs: bool1},
	{Name: "is_not_true", Sigs: bool1},
	{Name: "is_false", Sigs: bool1},
	{Name: "is_not_false", Sigs: bool1},
	{Name: "in", MixedNumeric: true, Sigs: sigs(Sig{Args: []types.Kind{AnyElement}, Variadic: true, Result: types.Bool})},
	{Name: "like", Strict: true, Sigs: likeSigs},
	{Name: "ilike", Strict: true, Sigs: likeSigs},
}

var likeSigs = []Sig{
	{Args: []types.Kind{types.String, types.String}, Result: types.Bool},
	{Args: []types.Kind{types.String, types.String, types.String}, Result: types.Bool},
}

// Conditional functions. COALESCE returns its first non-NULL argument,
// NULLIF(a, b) is NULL when a = b and a otherwise, GREATEST and LEAST
// ignore NULLs (Postgres). IF(c, a, b) binds to a Case and IFNULL to
// COALESCE.
var conditionalFuncs = []*Func{
	{Name: "coalesce", Sigs: anyVariadic},
	{Name: "greatest", Sigs: anyVariadic},
	{Name: "least", Sigs: anyVariadic},
	{Name: "nullif", Sigs: sigs(Sig{Args: []types.Kind{AnyElement, AnyElement}, Result: AnyElement})},
}

// String functions. Positions and lengths count characters (runes), from
// 1. CONCAT and `||` (which the TiDB parser delivers as CONCAT) accept any
// kinds, format them as text, and return NULL when any argument is NULL,
// as Flink and MySQL do. "strpos" is POSITION(sub IN s) and INSTR(s, sub);
// "substr" is SUBSTR and SUBSTRING with Postgres semantics for starts
// below 1; LEFT and RIGHT take a negative count to mean "all but".
var stringFuncs = []*Func{
	{Name: "concat", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{AnyKind}, Variadic: true, Result: types.String})},
	{Name: "||", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{AnyKind, AnyKind}, Result: types.String})},
	{Name: "lower", Strict: true, Sigs: str1},
	{Name: "upper", Strict: true, Sigs: str1},
	{Name: "length", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{types.String}, Result: types.Int})},
	{Name: "substr", Strict: true, Sigs: sigs(
		Sig{Args: []types.Kind{types.String, types.Int}, Result: types.String},
		Sig{Args: []types.Kind{types.String, types.Int, types.Int}, Result: types.String})},
	{Name: "trim", Strict: true, Sigs: trimSigs},
	{Name: "ltrim", Strict: true, Sigs: trimSigs},
	{Name: "rtrim", Strict: true, Sigs: trimSigs},
	{Name: "replace", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{types.String, types.String, types.String}, Result: types.String})},
	{Name: "strpos", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{types.String, types.String}, Result: types.Int})},
	{Name: "split_part", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{types.String, types.String, types.Int}, Result: types.String})},
	{Name: "left", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{types.String, types.Int}, Result: types.String})},
	{Name: "right", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{types.String, types.Int}, Result: types.String})},
}

// Math functions. ABS, FLOOR, CEIL, ROUND and SIGN keep an Int argument
// Int and a Decimal one Decimal (FLOOR, CEIL, SIGN and ROUND(x) at scale
// 0); ROUND rounds half away from zero, ROUND(x, n) to n decimals, and a
// Decimal (or Int) ROUND(x, n) has scale n, as in Postgres.
// POWER, SQRT, LN, LOG (base 10, or LOG(b, x)), LOG10 and EXP work on
// doubles (a Decimal argument is cast); a domain error (sqrt of a negative, log of zero) is a runtime
// error, i.e. NULL and a counted evaluation error in a running query.
var mathFuncs = []*Func{
	{Name: "abs", Strict: true, Sigs: intFlt1},
	{Name: "floor", Strict: true, Sigs: intFlt1},
	{Name: "ceil", Strict: true, Sigs: intFlt1},
	{Name: "sign", Strict: true, Sigs: intFlt1},
	{Name: "round", Strict: true, Sigs: with(intFlt1,
		Sig{Args: []types.Kind{types.Decimal, types.Int}, Result: types.Decimal},
		Sig{Args: []types.Kind{types.Float, types.Int}, Result: types.Float})},
	{Name: "power", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{types.Float, types.Float}, Result: types.Float})},
	{Name: "sqrt", Strict: true, Sigs: float1},
	{Name: "ln", Strict: true, Sigs: float1},
	{Name: "log10", Strict: true, Sigs: float1},
	{Name: "exp", Strict: true, Sigs: float1},
	{Name: "log", Strict: true, Sigs: with(float1,
		Sig{Args: []types.Kind{types.Float, types.Float}, Result: types.Float})},
}

// Time functions, in UTC on microsecond timestamps. EXTRACT(unit FROM ts)
// and DATE_PART('unit', ts) bind to "extract" with the unit as a constant
// lower-case string first; the result is Int except for 'second' and
// 'epoch', which are Float (with the fraction). DATE_TRUNC('unit', ts)
// truncates (weeks start on Monday). TO_TIMESTAMP converts epoch seconds.
// NOW (also CURRENT_TIMESTAMP) is volatile: it binds, and the planner
// refuses it in views; exec cannot evaluate it.
var timeFuncs = []*Func{
	{Name: "extract", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{types.String, types.Timestamp}, Result: types.Int})},
	{Name: "date_trunc", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{types.String, types.Timestamp}, Result: types.Timestamp})},
	{Name: "to_timestamp", Strict: true, Sigs: sigs(Sig{Args: []types.Kind{types.Float}, Result: types.Timestamp})},
	{Name: "now", Volatile: true, Sigs: sigs(Sig{Result: types.Timestamp})},
}

// funcAliases maps the other spellings users write to canonical names.
var funcAliases = map[string]string{
	"char_length":       "length",
	"character_length":  "length",
	"substring":         "substr",
	"ceiling":           "ceil",
	"pow":               "power",
	"instr":             "strpos",
	"date_part":         "extract",
	"current_timestamp": "now",
	"localtimestamp":    "now",
	"sysdate":           "now",
	"ifnull":            "coalesce",
	"btrim":             "trim",
	"dlog10":            "log10",
}

// ExtractUnits lists the units EXTRACT and DATE_PART accept.
var ExtractUnits = []string{
	"microseconds", "milliseconds", "second", "minute", "hour", "day",
	"dow", "isodow", "doy", "week", "month", "quarter", "year", "isoyear", "epoch",
}

// TruncUnits lists the units DATE_TRUNC accepts.
var TruncUnits = []string{
	"microseconds", "milliseconds", "second", "minute", "hour", "day",
	"week", "month", "quarter", "year",
}

var funcTable = buildFuncTable()

func buildFuncTable() map[string]*Func {
	m := make(map[string]*Func)
	for _, fam := range [][]*Func{arithmeticFuncs, logicFuncs, conditionalFuncs, stringFuncs, mathFuncs, timeFuncs} {
		for _, f := range fam {
			m[f.Name] = f
		}
	}
	return m
}

// LookupFunc returns the built-in named name (canonical or alias,
// case-insensitive).
func LookupFunc(name string) (*Func, bool) {
	n := strings.ToLower(name)
	if c, ok := funcAliases[n]; ok {
		n = c
	}
	f, ok := funcTable[n]
	return f, ok
}

// FuncNames returns every canonical function and operator name, sorted.
func FuncNames() []string {
	out := make([]string, 0, len(funcTable))
	for n := range funcTable {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// NormalizeUnit lower-cases a time unit and folds the plural and
// abbreviated spellings ("seconds", "ms", "us") to the names in
// ExtractUnits and TruncUnits. It returns "" for an unknown unit.
func NormalizeUnit(u string) string {
	switch strings.ToLower(strings.TrimSpace(u)) {
	case "microsecond", "microseconds", "us", "usec", "usecs":
		return "microseconds"
	case "millisecond", "milliseconds", "ms", "msec", "msecs":
		return "milliseconds"
	case "second", "seconds", "s", "sec", "secs":
		return "second"
	case "minute", "minutes", "m", "min", "mins":
		return "minute"
	case "hour", "hours", "h", "hr", "hrs":
		return "hour"
	case "day", "days", "d":
		return "day"
	case "week", "weeks", "w":
		return "week"
	case "month", "months", "mon", "mons":
		return "month"
	case "quarter", "quarters":
		return "quarter"
	case "year", "years", "y", "yr", "yrs":
		return "year"
	case "dow":
		return "dow"
	case "isodow":
		return "isodow"
	case "doy":
		return "doy"
	case "isoyear":
		return "isoyear"
	case "epoch":
		return "epoch"
	}
	return ""
}

// CanCast reports whether a value of kind from can be cast to kind to.
// Every kind casts to and from VARCHAR; numbers cast to each other (Float
// and Decimal to Int round half away from zero, Float to Decimal goes
// through 15 significant digits as in Postgres); Int casts to and from
// BOOLEAN; NULL casts to anything. Timestamps and dates cast to each
// other (a timestamp's date is its day); intervals cast only to
// themselves and text.
func CanCast(from, to types.Kind) bool {
	if from == to || from == types.Null || from == types.String || to == types.String {
		return true
	}
	switch from {
	case types.Int:
		return to == types.Float || to == types.Decimal || to == types.Bool
	case types.Float:
		return to == types.Int || to == types.Decimal
	case types.Decimal:
		return to == types.Int || to == types.Float
	case types.Bool:
		return to == types.Int
	case types.Timestamp:
		return to == types.Date
	case types.Date:
		return to == types.Timestamp
	}
	return false
}

// implicitCast reports whether the binder converts an argument of kind
// from where kind to is wanted, as Postgres's implicit casts do: BIGINT
// to DECIMAL, DECIMAL to DOUBLE and DATE to TIMESTAMP. (BIGINT to DOUBLE
// is widen's.)
func implicitCast(from, to types.Kind) bool {
	return (from == types.Int && to == types.Decimal) || (from == types.Decimal && to == types.Float) ||
		(from == types.Date && to == types.Timestamp)
}
