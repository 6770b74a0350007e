package exec

import (
	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// castJSONB converts text to JSONB and a JSONB number or boolean to a
// number or BOOLEAN, as Postgres's jsonb casts do (a JSON value of another
// type is a 22023 error); ok is false for other conversions.
func castJSONB(v types.Value, to types.Kind) (types.Value, bool, *sqlerr.Error) {
	switch {
	case to == types.JSONB && v.K == types.String:
		j, err := types.ParseJSONB(v.S)
		if err != nil {
			return types.NullValue, true, funcs.JSONErr(err)
		}
		return j, true, nil
	case v.K != types.JSONB || to == types.String:
		return v, false, nil
	}
	j := types.JSONOf(v)
	switch {
	case to == types.Bool && j.Kind == types.JSONBool:
		return types.BoolValue(j.Bool), true, nil
	case types.IsNumeric(to) && j.Kind == types.JSONNumber:
		x, ok, err := castNumber(j.Num, to)
		if !ok {
			return j.Num, true, nil // to is DECIMAL
		}
		return x, true, err
	}
	return types.NullValue, true, sqlerr.New(sqlerr.InvalidParameter, "cannot cast jsonb %s to type %s", j.Kind, types.PgName(to))
}
