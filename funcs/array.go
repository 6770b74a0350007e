package funcs

import (
	"regexp"
	"strings"
	"time"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

var textArray = types.ArrayOf(types.String)

// Array functions over one-dimensional arrays (types/array.go), with
// Postgres's semantics: subscripts count from 1 and one out of range is
// NULL. "array" is the ARRAY[...] constructor and "[]" the subscript
// a[i], both as the parser rewrites them; exec compiles "array" itself,
// since an array of NULLs still needs its element kind.
var arrayFuncs = []*Func{
	{Name: "array", Doc: "`ARRAY[a, b, ...]`: the array of the values (of one kind)",
		Sigs: sigs(Sig{Args: []types.Kind{AnyElement}, Variadic: true, Result: AnyArray})},
	{Name: "[]", Doc: "`a[i]`: the element at 1-based position i, NULL out of range", Strict: true,
		Sigs: sigs(sig(AnyArray, types.Int, AnyElement)),
		Impl: Impl{F2: func(a, i types.Value) (types.Value, *sqlerr.Error) {
			elems := types.ArrayElems(a)
			if i.I < 1 || i.I > int64(len(elems)) {
				return okv(types.NullValue)
			}
			return okv(elems[i.I-1])
		}}},
	{Name: "array_length", Doc: "the length of dimension d (only 1); NULL for an empty array", Strict: true,
		Sigs: sigs(sig(AnyArray, types.Int, types.Int)),
		Impl: Impl{F2: func(a, d types.Value) (types.Value, *sqlerr.Error) {
			n := types.ArrayLen(a)
			if d.I != 1 || n == 0 {
				return okv(types.NullValue)
			}
			return okv(types.IntValue(int64(n)))
		}}},
	{Name: "cardinality", Doc: "the number of elements", Strict: true,
		Sigs: sigs(sig(AnyArray, types.Int)),
		Impl: Impl{F1: func(a types.Value) (types.Value, *sqlerr.Error) {
			return okv(types.IntValue(int64(types.ArrayLen(a))))
		}}},
	{Name: "array_to_string", Doc: "the elements as text joined by sep; NULL elements skipped, or written as the third argument",
		Sigs: sigs(sig(AnyArray, types.String, types.String), sig(AnyArray, types.String, types.String, types.String)),
		Impl: Impl{FN: arrayToString}},
	{Name: "string_to_array", Doc: "s split at every sep (each character when sep is NULL); elements equal to the third argument are NULL",
		Sigs: sigs(sig(types.String, types.String, textArray), sig(types.String, types.String, types.String, textArray)),
		Impl: Impl{FN: stringToArray}},
	{Name: "regexp_match", Doc: "the first match's groups (or the whole match when there are none) as text[]; NULL without a match", Strict: true,
		Sigs: sigs(sig(types.String, types.String, textArray), sig(types.String, types.String, types.String, textArray)),
		Prepare: prepareRegex("regexp_match", func(re *regexp.Regexp, _ bool, a []types.Value) types.Value {
			return regexMatch(re, a[0].S)
		})},
	{Name: "regexp_split_to_array", Doc: "s split at every match of the pattern, as text[]", Strict: true,
		Sigs: sigs(sig(types.String, types.String, textArray), sig(types.String, types.String, types.String, textArray)),
		Prepare: prepareRegex("regexp_split_to_array", func(re *regexp.Regexp, _ bool, a []types.Value) types.Value {
			return regexSplit(re, a[0].S)
		})},
}

func arrayToString(a []types.Value) (types.Value, *sqlerr.Error) {
	if a[0].K == types.Null || a[1].K == types.Null {
		return okv(types.NullValue)
	}
	nullText, keepNulls := "", len(a) > 2 && a[2].K != types.Null
	if keepNulls {
		nullText = a[2].S
	}
	var b strings.Builder
	first := true
	for _, e := range types.ArrayElems(a[0]) {
		if e.K == types.Null && !keepNulls {
			continue
		}
		if !first {
			b.WriteString(a[1].S)
		}
		first = false
		if e.K == types.Null {
			b.WriteString(nullText)
		} else {
			b.WriteString(e.String())
		}
	}
	return okv(types.StringValue(b.String()))
}

func stringToArray(a []types.Value) (types.Value, *sqlerr.Error) {
	if a[0].K == types.Null {
		return okv(types.NullValue)
	}
	s := a[0].S
	var parts []string
	switch {
	case s == "":
	case a[1].K == types.Null:
		for _, r := range s {
			parts = append(parts, string(r))
		}
	case a[1].S == "":
		parts = []string{s}
	default:
		parts = strings.Split(s, a[1].S)
	}
	vals := make([]types.Value, len(parts))
	for i, p := range parts {
		if len(a) > 2 && a[2].K != types.Null && p == a[2].S {
			continue
		}
		vals[i] = types.StringValue(p)
	}
	return okv(types.ArrayValue(types.String, vals))
}

// regexMatch is regexp_match: the groups of the first match (NULL for a
// group that did not take part), or the whole match without groups.
func regexMatch(re *regexp.Regexp, s string) types.Value {
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return types.NullValue
	}
	if len(m) == 2 {
		return types.ArrayValue(types.String, []types.Value{types.StringValue(s[m[0]:m[1]])})
	}
	vals := make([]types.Value, len(m)/2-1)
	for g := range vals {
		if lo := m[2*g+2]; lo >= 0 {
			vals[g] = types.StringValue(s[lo:m[2*g+3]])
		}
	}
	return types.ArrayValue(types.String, vals)
}

// regexSplit is regexp_split_to_array: the text between matches. As in
// Postgres, an empty match at the end of s, or one that ends where the
// previous match ended (at the start, or right after it), splits nothing.
func regexSplit(re *regexp.Regexp, s string) types.Value {
	var vals []types.Value
	start, prevEnd := 0, 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[0] < len(s) && m[1] > prevEnd {
			vals = append(vals, types.StringValue(s[start:m[0]]))
			start = m[1]
		}
		prevEnd = m[1]
	}
	vals = append(vals, types.StringValue(s[start:]))
	return types.ArrayValue(types.String, vals)
}

// ParseArray reads an array's text form into an array of elem-kind
// values, with Postgres's SQLSTATEs for bad input.
func ParseArray(s string, elem types.Kind) (types.Value, *sqlerr.Error) {
	return ParseArrayIn(s, elem, time.UTC)
}

// ParseArrayIn is ParseArray with TIMESTAMPTZ elements that carry no
// offset read as wall time in zone loc.
func ParseArrayIn(s string, elem types.Kind, loc *time.Location) (types.Value, *sqlerr.Error) {
	v, err := types.ParseArray(s, elem, func(e string) (types.Value, error) { return types.ParseScalarIn(e, elem, loc) })
	if err != nil {
		return types.NullValue, ValueErr(err)
	}
	return v, nil
}
