package funcs

import "github.com/streamsql/streamsql/types"

// Shared signature lists.
var (
	num2 = []Sig{
		sig(types.Int, types.Int, types.Int),
		sig(types.Decimal, types.Decimal, types.Decimal),
		sig(types.Float, types.Float, types.Float),
		sig(types.Int, types.Float, types.Float),
		sig(types.Float, types.Int, types.Float),
	}
	cmp2    = []Sig{sig(AnyElement, AnyElement, types.Bool)}
	bool2   = []Sig{sig(types.Bool, types.Bool, types.Bool)}
	bool1   = []Sig{sig(types.Bool, types.Bool)}
	any1    = []Sig{sig(AnyKind, types.Bool)}
	intFlt1 = []Sig{
		sig(types.Int, types.Int),
		sig(types.Decimal, types.Decimal),
		sig(types.Float, types.Float),
	}
	anyVariadic = []Sig{{Args: []types.Kind{AnyElement}, Variadic: true, Result: AnyElement}}
)

// Arithmetic operators. Int op Int stays Int (`/` truncates toward zero
// and `%` takes the dividend's sign, as in Postgres); a Decimal operand
// makes the result an exact Decimal (an Int is cast to it) with
// Postgres's result scales (types/decimal.go); a Float operand makes the
// result Float (a Decimal is cast to it). timestamp ± interval is a
// timestamp (months on the calendar, types.TimestampAddInterval),
// timestamp − timestamp an interval of days and time, and intervals add
// part by part and scale by numbers as Postgres's do (types/interval.go). A date ± an
// integer is a date, date − date the integer count of days between, and
// date ± interval a timestamp (the date is cast), date + time a
// timestamp. timestamptz ± interval works on the wall clock of the
// binder's time zone (the binder rewrites it through TIMESTAMP, as
// Postgres does); timestamptz − timestamptz is the interval between the
// instants. time ± interval is a time (the interval's time part on a
// 24-hour clock, types.TimeAddInterval) and time − time an interval.
// "neg" is unary minus.
// exec compiles all of them into typed closures.
var arithmeticFuncs = []*Func{
	{Name: "+", Doc: "addition", Strict: true, MixedNumeric: true, Sigs: with(num2,
		sig(types.Timestamp, types.Interval, types.Timestamp),
		sig(types.Interval, types.Timestamp, types.Timestamp),
		sig(types.Interval, types.Interval, types.Interval),
		sig(types.Date, types.Int, types.Date),
		sig(types.Int, types.Date, types.Date),
		sig(types.TimestampTZ, types.Interval, types.TimestampTZ),
		sig(types.Interval, types.TimestampTZ, types.TimestampTZ),
		sig(types.Date, types.Time, types.Timestamp),
		sig(types.Time, types.Date, types.Timestamp),
		sig(types.Time, types.Interval, types.Time),
		sig(types.Interval, types.Time, types.Time))},
	{Name: "-", Doc: "subtraction", Strict: true, MixedNumeric: true, Sigs: with(num2,
		sig(types.Timestamp, types.Interval, types.Timestamp),
		sig(types.Timestamp, types.Timestamp, types.Interval),
		sig(types.Interval, types.Interval, types.Interval),
		sig(types.Date, types.Int, types.Date),
		sig(types.Date, types.Date, types.Int),
		sig(types.TimestampTZ, types.Interval, types.TimestampTZ),
		sig(types.TimestampTZ, types.TimestampTZ, types.Interval),
		sig(types.Time, types.Interval, types.Time),
		sig(types.Time, types.Time, types.Interval))},
	{Name: "*", Doc: "multiplication", Strict: true, MixedNumeric: true, Sigs: with(num2,
		sig(types.Interval, types.Int, types.Interval),
		sig(types.Interval, types.Float, types.Interval),
		sig(types.Int, types.Interval, types.Interval),
		sig(types.Float, types.Interval, types.Interval))},
	{Name: "/", Doc: "division (BIGINT truncates toward zero)", Strict: true, MixedNumeric: true, Sigs: with(num2,
		sig(types.Interval, types.Int, types.Interval),
		sig(types.Interval, types.Float, types.Interval))},
	{Name: "%", Doc: "remainder (the dividend's sign)", Strict: true, MixedNumeric: true, Sigs: num2},
	{Name: "neg", Doc: "unary minus", Strict: true, MixedNumeric: true, Sigs: with(intFlt1,
		sig(types.Interval, types.Interval))},
}

// Comparison and logical operators. Comparisons take two operands of one
// kind (Int and Float compare numerically); "is_not_distinct_from" is
// `IS NOT DISTINCT FROM` and MySQL's <=> (NULL-safe equality), and
// "is_distinct_from" its negation. AND, OR and NOT use three-valued
// logic; the IS tests never return NULL. "in" is `x IN (a, b, ...)` with
// x first; "like"/"ilike" take (string, pattern[, escape]) where the
// default escape is backslash.
var logicFuncs = []*Func{
	{Name: "=", Doc: "equal", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: "<>", Doc: "not equal", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: "<", Doc: "less than", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: "<=", Doc: "less than or equal", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: ">", Doc: "greater than", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: ">=", Doc: "greater than or equal", Strict: true, MixedNumeric: true, Sigs: cmp2},
	{Name: "is_not_distinct_from", Doc: "`a IS NOT DISTINCT FROM b`, `a <=> b`: equal, NULL equal to NULL", MixedNumeric: true, Sigs: cmp2},
	{Name: "is_distinct_from", Doc: "`a IS DISTINCT FROM b`: not equal, NULL equal to NULL", MixedNumeric: true, Sigs: cmp2},
	{Name: "and", Doc: "three-valued AND", Sigs: bool2},
	{Name: "or", Doc: "three-valued OR", Sigs: bool2},
	{Name: "not", Doc: "NOT", Strict: true, Sigs: bool1},
	{Name: "is_null", Doc: "`x IS NULL`", Sigs: any1},
	{Name: "is_not_null", Doc: "`x IS NOT NULL`", Sigs: any1},
	{Name: "is_true", Doc: "`b IS TRUE`", Sigs: bool1},
	{Name: "is_not_true", Doc: "`b IS NOT TRUE`", Sigs: bool1},
	{Name: "is_false", Doc: "`b IS FALSE`", Sigs: bool1},
	{Name: "is_not_false", Doc: "`b IS NOT FALSE`", Sigs: bool1},
	{Name: "in", Doc: "`x IN (a, b, ...)`", MixedNumeric: true, Sigs: sigs(Sig{Args: []types.Kind{AnyElement}, Variadic: true, Result: types.Bool})},
	{Name: "like", Doc: "`s LIKE pattern [ESCAPE e]`", Strict: true, Sigs: likeSigs},
	{Name: "ilike", Doc: "`s ILIKE pattern [ESCAPE e]`, case-insensitive", Strict: true, Sigs: likeSigs},
}

var likeSigs = []Sig{
	sig(types.String, types.String, types.Bool),
	sig(types.String, types.String, types.String, types.Bool),
}

// Conditional functions. COALESCE returns its first non-NULL argument,
// NULLIF(a, b) is NULL when a = b and a otherwise, GREATEST and LEAST
// ignore NULLs (Postgres). IF(c, a, b) binds to a Case and IFNULL to
// COALESCE.
var conditionalFuncs = []*Func{
	{Name: "coalesce", Doc: "the first non-NULL argument", Sigs: anyVariadic, Aliases: []string{"ifnull"}},
	{Name: "greatest", Doc: "the largest non-NULL argument", Sigs: anyVariadic},
	{Name: "least", Doc: "the smallest non-NULL argument", Sigs: anyVariadic},
	{Name: "nullif", Doc: "NULL when a = b, else a", Sigs: sigs(sig(AnyElement, AnyElement, AnyElement))},
}
