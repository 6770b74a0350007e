package planner

import "github.com/streamsql/streamsql/types"

// The built-in functions and operators, their signatures and their
// implementations live in the funcs package (the one registry the binder,
// exec and pg_proc read); this file keeps the cast rules the binder
// applies around them.

// CanCast reports whether a value of kind from can be cast to kind to.
// Every kind casts to and from VARCHAR; numbers cast to each other (Float
// and Decimal to Int round half away from zero, Float to Decimal goes
// through 15 significant digits as in Postgres); Int casts to and from
// BOOLEAN; NULL casts to anything. Timestamps and dates cast to each
// other (a timestamp's date is its day); intervals cast only to
// themselves and text; JSONB casts to numbers and BOOLEAN (a JSON number
// or boolean, as Postgres's jsonb casts). TIMESTAMPTZ casts to and from
// TIMESTAMP and DATE and to TIME in the binder's time zone (Cast.Zone);
// TIME comes from TIMESTAMP too.
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
		return to == types.Date || to == types.TimestampTZ || to == types.Time
	case types.Date:
		return to == types.Timestamp || to == types.TimestampTZ
	case types.TimestampTZ:
		return to == types.Timestamp || to == types.Date || to == types.Time
	case types.JSONB:
		return types.IsNumeric(to) || to == types.Bool
	}
	if from.IsArray() && to.IsArray() {
		return CanCast(from.Elem(), to.Elem())
	}
	return false
}

// implicitCast reports whether the binder converts an argument of kind
// from where kind to is wanted, as Postgres's implicit casts do: BIGINT
// to DECIMAL, DECIMAL to DOUBLE, DATE to TIMESTAMP and TIMESTAMPTZ,
// TIMESTAMP to TIMESTAMPTZ and, for the functions that take only a
// TIMESTAMP (extract, date_trunc, ...), TIMESTAMPTZ to TIMESTAMP: its wall
// time in the binder's zone. (BIGINT to DOUBLE is widen's.)
func implicitCast(from, to types.Kind) bool {
	return (from == types.Int && to == types.Decimal) || (from == types.Decimal && to == types.Float) ||
		(from == types.Date && to == types.Timestamp) || (from == types.Date && to == types.TimestampTZ) ||
		(from == types.Timestamp && to == types.TimestampTZ) || (from == types.TimestampTZ && to == types.Timestamp)
}
