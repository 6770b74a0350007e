package funcs

import (
	"time"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Time zone functions. timezone(zone, ts) is `ts AT TIME ZONE zone`: a
// TIMESTAMP read as wall time in zone gives the TIMESTAMPTZ instant, a
// TIMESTAMPTZ gives its wall time in zone as a TIMESTAMP. Zones are IANA
// names from Go's time zone database (types.LoadZone).
var zoneFuncs = []*Func{
	{Name: "timezone", Doc: "`ts AT TIME ZONE zone`: a timestamp's instant in zone, or a timestamptz's wall time there", Strict: true,
		Sigs:    sigs(sig(types.String, types.Timestamp, types.TimestampTZ), sig(types.String, types.TimestampTZ, types.Timestamp)),
		Prepare: prepareTimezone},
}

func prepareTimezone(consts []*types.Value) (Impl, *sqlerr.Error) {
	if z := consts[0]; z != nil && z.K == types.String {
		loc, err := Zone(z.S)
		if err != nil {
			return Impl{}, err
		}
		return Impl{F2: func(_, ts types.Value) (types.Value, *sqlerr.Error) { return AtTimeZone(ts, loc) }}, nil
	}
	return Impl{F2: func(z, ts types.Value) (types.Value, *sqlerr.Error) {
		loc, err := Zone(z.S)
		if err != nil {
			return types.NullValue, err
		}
		return AtTimeZone(ts, loc)
	}}, nil
}

// Zone loads a time zone by name, failing as Postgres does (22023).
func Zone(name string) (*time.Location, *sqlerr.Error) {
	loc, err := types.LoadZone(name)
	if err != nil {
		return nil, &sqlerr.Error{Code: sqlerr.InvalidParameter, Msg: "time zone \"" + name + "\" not recognized", Err: err}
	}
	return loc, nil
}

// AtTimeZone converts a TIMESTAMP (wall time in loc) to its TIMESTAMPTZ
// instant and a TIMESTAMPTZ to its TIMESTAMP wall time in loc.
func AtTimeZone(v types.Value, loc *time.Location) (types.Value, *sqlerr.Error) {
	if v.K == types.TimestampTZ {
		return types.TimestampValue(types.UTCToLocal(v.I, loc)), nil
	}
	return types.TimestampTZValue(types.LocalToUTC(v.I, loc)), nil
}

// CastZoned converts v to kind to where the session's time zone loc
// matters: TIMESTAMPTZ to and from TIMESTAMP, DATE, TIME and text, and
// arrays of it to and from text and other arrays. ok is false for other
// conversions.
func CastZoned(v types.Value, to types.Kind, loc *time.Location) (out types.Value, ok bool, err *sqlerr.Error) {
	if v.K.IsArray() || to.IsArray() {
		return castZonedArray(v, to, loc)
	}
	switch {
	case v.K == types.TimestampTZ && to == types.String:
		return types.StringValue(types.FormatTimestampTZ(v.I, loc)), true, nil
	case v.K == types.String && to == types.TimestampTZ:
		us, perr := types.ParseTimestampTZ(v.S, loc)
		if perr != nil {
			return types.NullValue, true, &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type timestamp with time zone: '" + v.S + "'", Err: perr}
		}
		return types.TimestampTZValue(us), true, nil
	case v.K == types.TimestampTZ && to == types.Timestamp:
		out, err = AtTimeZone(v, loc)
		return out, true, err
	case v.K == types.TimestampTZ && to == types.Date:
		return types.DateValue(types.TimestampToDate(types.UTCToLocal(v.I, loc))), true, nil
	case v.K == types.TimestampTZ && to == types.Time:
		return types.TimeValue(types.TimeOfDay(types.UTCToLocal(v.I, loc))), true, nil
	case v.K == types.Timestamp && to == types.TimestampTZ:
		out, err = AtTimeZone(v, loc)
		return out, true, err
	case v.K == types.Date && to == types.TimestampTZ:
		us, inRange := types.DateToTimestamp(v.I)
		if !inRange {
			return types.NullValue, true, ErrTSRange
		}
		return types.TimestampTZValue(types.LocalToUTC(us, loc)), true, nil
	}
	return v, false, nil
}

// CastTime converts to and from TIME: text reads as types.ParseTime, a
// timestamp gives its time of day. ok is false for other conversions.
func CastTime(v types.Value, to types.Kind) (types.Value, bool, *sqlerr.Error) {
	switch {
	case v.K == types.Time && to == types.String:
		return types.StringValue(types.FormatTime(v.I)), true, nil
	case v.K == types.String && to == types.Time:
		us, err := types.ParseTime(v.S)
		if err != nil {
			return types.NullValue, true, &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type time: '" + v.S + "'", Err: err}
		}
		return types.TimeValue(us), true, nil
	case v.K == types.Timestamp && to == types.Time:
		return types.TimeValue(types.TimeOfDay(v.I)), true, nil
	}
	return v, false, nil
}

// castZonedArray is CastZoned for arrays: TIMESTAMPTZ[] printed and read
// in zone loc, and arrays cast element by element.
func castZonedArray(v types.Value, to types.Kind, loc *time.Location) (types.Value, bool, *sqlerr.Error) {
	switch {
	case v.K.IsArray() && to == types.String:
		return types.StringValue(types.FormatArrayIn(v, loc)), true, nil
	case v.K == types.String && to.IsArray():
		a, err := ParseArrayIn(v.S, to.Elem(), loc)
		return a, true, err
	case v.K.IsArray() && to.IsArray():
		elems := types.ArrayElems(v)
		for i, e := range elems {
			if e.K == types.Null || e.K == to.Elem() {
				continue
			}
			x, ok, err := CastZoned(e, to.Elem(), loc)
			if err != nil || !ok {
				return types.NullValue, ok, err
			}
			elems[i] = x
		}
		return types.ArrayValue(to.Elem(), elems), true, nil
	}
	return v, false, nil
}
