package funcs

import (
	"errors"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// JSONB operators and functions, with Postgres's semantics. A JSONB value
// is its canonical text (types/jsonb.go); each call parses what it reads.
// A missing field, an index out of range or a path through a scalar gives
// NULL, as in Postgres. The operators are named by their symbols: the
// parser rewrites `a -> b` into the call `->`(a, b).
var jsonFuncs = []*Func{
	{Name: "->", Doc: "`jsonb -> text`: an object's field; `jsonb -> bigint`: an array's element (negative counts from the end)",
		Strict: true, Sigs: sigs(sig(types.JSONB, types.String, types.JSONB), sig(types.JSONB, types.Int, types.JSONB)),
		Impl: Impl{F2: jsonGet(false)}},
	{Name: "->>", Doc: "`->` as text (a JSON string unquoted, JSON null as NULL)",
		Strict: true, Sigs: sigs(sig(types.JSONB, types.String, types.String), sig(types.JSONB, types.Int, types.String)),
		Impl: Impl{F2: jsonGet(true)}},
	{Name: "#>", Doc: "`jsonb #> text[]`: the value at a path (`'{a,0,b}'`: keys and array indexes)",
		Strict: true, Sigs: sigs(sig(types.JSONB, types.String, types.JSONB)), Impl: Impl{F2: jsonPath(false)}},
	{Name: "#>>", Doc: "`#>` as text",
		Strict: true, Sigs: sigs(sig(types.JSONB, types.String, types.String)), Impl: Impl{F2: jsonPath(true)}},
	{Name: "@>", Doc: "`jsonb @> jsonb`: the left value contains the right one",
		Strict: true, Sigs: sigs(sig(types.JSONB, types.JSONB, types.Bool)), Impl: Impl{F2: jsonContains}},
	{Name: "?", Doc: "`jsonb ? text`: the string is a top-level key or array element",
		Strict: true, Sigs: sigs(sig(types.JSONB, types.String, types.Bool)), Impl: Impl{F2: jsonExists}},
	{Name: "jsonb_typeof", Doc: "the type of the outermost value: object, array, string, number, boolean or null",
		Strict: true, Sigs: sigs(sig(types.JSONB, types.String)), Impl: Impl{F1: jsonTypeof}},
	{Name: "jsonb_array_length", Doc: "the number of elements of an array",
		Strict: true, Sigs: sigs(sig(types.JSONB, types.Int)), Impl: Impl{F1: jsonArrayLength}},
	{Name: "jsonb_build_object", Doc: "an object of alternating keys and values (keys must not be NULL)",
		Sigs: sigs(sig(types.JSONB), Sig{Args: []types.Kind{AnyKind}, Variadic: true, Result: types.JSONB}),
		Impl: Impl{FN: jsonBuildObject}},
}

// JSONErr turns a types.JSONError (bad JSON text) into a *sqlerr.Error
// with its SQLSTATE.
func JSONErr(err error) *sqlerr.Error {
	var je *types.JSONError
	if errors.As(err, &je) {
		return sqlerr.New(je.Code, "%s", je.Msg)
	}
	return sqlerr.New(sqlerr.DataException, "%s", err.Error())
}

// jsonResult is j as the result of -> (text false) or ->> (text true).
func jsonResult(j *types.JSON, text bool) (types.Value, *sqlerr.Error) {
	switch {
	case j == nil:
		return types.NullValue, nil
	case !text:
		return types.JSONBValue(j), nil
	}
	s, ok := j.Text()
	if !ok {
		return types.NullValue, nil
	}
	return types.StringValue(s), nil
}

// jsonGet is -> and ->>: it scans the canonical text for the field or
// element (types.JSONBField), without parsing the document.
func jsonGet(text bool) func(a, b types.Value) (types.Value, *sqlerr.Error) {
	return func(a, b types.Value) (types.Value, *sqlerr.Error) {
		var part string
		var ok bool
		switch {
		case b.K != types.Int:
			part, ok = types.JSONBField(a, b.S)
		case a.S != "" && a.S[0] != '[' && a.S[0] != '{':
			part, ok = a.S, b.I == 0 || b.I == -1 // a scalar is jsonb's one-element "raw scalar" array
		default:
			part, ok = types.JSONBIndex(a, b.I)
		}
		switch {
		case !ok:
			return types.NullValue, nil
		case !text:
			return types.Value{K: types.JSONB, S: part}, nil
		}
		if s, ok := types.JSONBText(part); ok {
			return types.StringValue(s), nil
		}
		return types.NullValue, nil
	}
}

func jsonPath(text bool) func(a, b types.Value) (types.Value, *sqlerr.Error) {
	return func(a, b types.Value) (types.Value, *sqlerr.Error) {
		path, err := ParseTextArray(b.S)
		if err != nil {
			return types.NullValue, err
		}
		j := types.JSONOf(a)
		for _, step := range path {
			if step == nil {
				return types.NullValue, nil
			}
			j = pathStep(j, *step)
			if j == nil {
				return types.NullValue, nil
			}
		}
		return jsonResult(j, text)
	}
}

// pathStep follows one #> path element: an object's key, or an array's
// index written as an integer.
func pathStep(j *types.JSON, step string) *types.JSON {
	if j.Kind == types.JSONArray {
		i, err := strconv.ParseInt(strings.TrimSpace(step), 10, 64)
		if err != nil {
			return nil
		}
		return j.Index(i)
	}
	return j.Field(step)
}

func jsonContains(a, b types.Value) (types.Value, *sqlerr.Error) {
	return types.BoolValue(types.Contains(types.JSONOf(a), types.JSONOf(b))), nil
}

func jsonExists(a, b types.Value) (types.Value, *sqlerr.Error) {
	return types.BoolValue(types.Exists(types.JSONOf(a), b.S)), nil
}

func jsonTypeof(a types.Value) (types.Value, *sqlerr.Error) {
	return types.StringValue(types.JSONOf(a).Kind.String()), nil
}

var (
	errLenScalar = sqlerr.New(sqlerr.InvalidParameter, "cannot get array length of a scalar")
	errLenObject = sqlerr.New(sqlerr.InvalidParameter, "cannot get array length of a non-array")
	errOddArgs   = sqlerr.New(sqlerr.InvalidParameter, "argument list must have even number of elements")
)

func jsonArrayLength(a types.Value) (types.Value, *sqlerr.Error) {
	switch j := types.JSONOf(a); j.Kind {
	case types.JSONArray:
		return types.IntValue(int64(len(j.Elems))), nil
	case types.JSONObject:
		return types.NullValue, errLenObject
	}
	return types.NullValue, errLenScalar
}

// CodeNullNotAllowed is null_value_not_allowed.
const CodeNullNotAllowed = "22004"

func jsonBuildObject(args []types.Value) (types.Value, *sqlerr.Error) {
	if len(args)%2 != 0 {
		return types.NullValue, errOddArgs
	}
	j := &types.JSON{Kind: types.JSONObject}
	for i := 0; i < len(args); i += 2 {
		if args[i].K == types.Null {
			return types.NullValue, sqlerr.New(CodeNullNotAllowed, "argument %d: key must not be null", i+1)
		}
		j.Keys = append(j.Keys, jsonKey(args[i]))
		j.Vals = append(j.Vals, ToJSON(args[i+1]))
	}
	j.SortKeys()
	return types.JSONBValue(j), nil
}

// jsonKey is the object key a value makes: its text, timestamps in ISO
// 8601 as to_jsonb writes them.
func jsonKey(v types.Value) string {
	switch v.K {
	case types.Timestamp, types.Date:
		return ToJSON(v).Str
	case types.JSONB:
		s, _ := types.JSONOf(v).Text()
		return s
	}
	return Text(v)
}

// ToJSON converts a SQL value to JSON as Postgres's to_jsonb does:
// numbers as numbers (a DOUBLE's NaN and infinities as strings), booleans,
// NULL as null, timestamps and dates as ISO 8601 strings, JSONB as itself
// and anything else as its text.
func ToJSON(v types.Value) *types.JSON {
	switch v.K {
	case types.Null:
		return &types.JSON{}
	case types.Bool:
		return &types.JSON{Kind: types.JSONBool, Bool: v.I != 0}
	case types.Int:
		return &types.JSON{Kind: types.JSONNumber, Num: types.DecimalFromInt(v.I)}
	case types.Decimal:
		return &types.JSON{Kind: types.JSONNumber, Num: v}
	case types.Float:
		if d, err := types.ParseDecimal(types.FormatFloat(v.F)); err == nil {
			return &types.JSON{Kind: types.JSONNumber, Num: d}
		}
	case types.Timestamp:
		return &types.JSON{Kind: types.JSONString, Str: strings.Replace(types.FormatTimestamp(v.I), " ", "T", 1)}
	case types.JSONB:
		return types.JSONOf(v)
	}
	return &types.JSON{Kind: types.JSONString, Str: v.String()}
}

// ParseTextArray reads a one-dimensional text[] literal (`{a,"b c",NULL}`)
// as Postgres's array input does; a nil element is NULL.
func ParseTextArray(s string) ([]*string, *sqlerr.Error) {
	t := strings.TrimSpace(s)
	bad := sqlerr.New("22P02", "malformed array literal: \"%s\"", s)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, bad
	}
	body := t[1 : len(t)-1]
	if strings.TrimSpace(body) == "" {
		return nil, nil
	}
	var out []*string
	for i := 0; ; {
		for i < len(body) && isArraySpace(body[i]) {
			i++
		}
		elem, quoted, next, ok := arrayElem(body, i)
		if !ok {
			return nil, bad
		}
		if !quoted && strings.EqualFold(elem, "NULL") {
			out = append(out, nil)
		} else {
			out = append(out, &elem)
		}
		i = next
		for i < len(body) && isArraySpace(body[i]) {
			i++
		}
		if i == len(body) {
			return out, nil
		}
		if body[i] != ',' {
			return nil, bad
		}
		i++
	}
}

// arrayElem reads one element of an array literal's body at i.
func arrayElem(body string, i int) (elem string, quoted bool, next int, ok bool) {
	var b strings.Builder
	if i < len(body) && body[i] == '"' {
		for i++; i < len(body); i++ {
			switch body[i] {
			case '\\':
				if i++; i == len(body) {
					return "", false, 0, false
				}
			case '"':
				return b.String(), true, i + 1, true
			}
			b.WriteByte(body[i])
		}
		return "", false, 0, false
	}
	for ; i < len(body) && body[i] != ','; i++ {
		switch body[i] {
		case '{', '}', '"':
			return "", false, 0, false
		case '\\':
			if i++; i == len(body) {
				return "", false, 0, false
			}
		}
		b.WriteByte(body[i])
	}
	elem = strings.TrimRight(b.String(), " \t\n\r\v\f")
	return elem, false, i, elem != ""
}

func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
