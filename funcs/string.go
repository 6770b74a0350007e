package funcs

import (
	"crypto/md5"
	"encoding/hex"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

var (
	str1     = []Sig{sig(types.String, types.String)}
	trimSigs = []Sig{
		sig(types.String, types.String),
		sig(types.String, types.String, types.String),
	}
	padSigs = []Sig{
		sig(types.String, types.Int, types.String),
		sig(types.String, types.Int, types.String, types.String),
	}
)

// String functions. Positions and lengths count characters (runes), from
// 1. CONCAT and `||` (which the TiDB parser delivers as CONCAT) accept any
// kinds, format them as text (Text), and return NULL when any argument is
// NULL, as Flink and MySQL do; CONCAT_WS skips NULL arguments as Postgres
// does. "strpos" is POSITION(sub IN s) and INSTR(s, sub); "substr" is
// SUBSTR and SUBSTRING with Postgres semantics for starts below 1; LEFT
// and RIGHT take a negative count to mean "all but".
var stringFuncs = []*Func{
	{Name: "concat", Doc: "the arguments as text, joined; NULL if any is NULL", Strict: true,
		Sigs: sigs(Sig{Args: []types.Kind{AnyKind}, Variadic: true, Result: types.String}), Impl: Impl{FN: concat}},
	{Name: "||", Doc: "`a || b`: CONCAT of two values; of two BYTEA values, their bytes joined", Strict: true,
		Sigs: sigs(sig(types.Bytea, types.Bytea, types.Bytea), sig(AnyKind, AnyKind, types.String)),
		Impl: Impl{F2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
			if a.K == types.Bytea && b.K == types.Bytea {
				return okv(types.ByteaValue(a.S + b.S))
			}
			return concat([]types.Value{a, b})
		}}},
	{Name: "concat_ws", Doc: "the arguments after the first as text, joined by the first; NULL arguments are skipped",
		Sigs: sigs(Sig{Args: []types.Kind{types.String, AnyKind}, Variadic: true, Result: types.String}), Impl: Impl{FN: concatWS}},
	{Name: "lower", Doc: "lower case", Strict: true, Sigs: str1, Impl: strFn(strings.ToLower)},
	{Name: "upper", Doc: "upper case", Strict: true, Sigs: str1, Impl: strFn(strings.ToUpper)},
	{Name: "initcap", Doc: "the first letter of each word upper case, the rest lower case", Strict: true, Sigs: str1, Impl: strFn(initcap)},
	{Name: "reverse", Doc: "the characters in reverse order", Strict: true, Sigs: str1, Impl: strFn(reverse)},
	{Name: "length", Doc: "the number of characters (of a BYTEA: bytes)", Strict: true,
		Sigs:    sigs(sig(types.String, types.Int), sig(types.Bytea, types.Int)),
		Aliases: []string{"char_length", "character_length"},
		Impl: Impl{F1: func(a types.Value) (types.Value, *sqlerr.Error) {
			if a.K == types.Bytea {
				return okv(types.IntValue(int64(len(a.S))))
			}
			return okv(types.IntValue(int64(utf8.RuneCountInString(a.S))))
		}}},
	{Name: "substr", Doc: "count characters (default all) from a 1-based start", Strict: true, Aliases: []string{"substring"},
		Sigs: sigs(sig(types.String, types.Int, types.String), sig(types.String, types.Int, types.Int, types.String)),
		Impl: Impl{
			F2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
				return okv(types.StringValue(Substr(a.S, b.I, math.MaxInt64)))
			},
			F3: func(a, b, c types.Value) (types.Value, *sqlerr.Error) {
				if c.I < 0 {
					return types.NullValue, errNegSubstr
				}
				return okv(types.StringValue(Substr(a.S, b.I, c.I)))
			},
		}},
	{Name: "trim", Doc: "remove the characters (default space) from both ends", Strict: true, Sigs: trimSigs, Aliases: []string{"btrim"}, Impl: trimFn(strings.Trim)},
	{Name: "ltrim", Doc: "remove the characters (default space) from the start", Strict: true, Sigs: trimSigs, Impl: trimFn(strings.TrimLeft)},
	{Name: "rtrim", Doc: "remove the characters (default space) from the end", Strict: true, Sigs: trimSigs, Impl: trimFn(strings.TrimRight)},
	{Name: "lpad", Doc: "pad on the left with fill (default space) to length n, or truncate to n", Strict: true, Sigs: padSigs, Impl: padFn(true)},
	{Name: "rpad", Doc: "pad on the right with fill (default space) to length n, or truncate to n", Strict: true, Sigs: padSigs, Impl: padFn(false)},
	{Name: "replace", Doc: "every occurrence of from replaced by to", Strict: true,
		Sigs: sigs(sig(types.String, types.String, types.String, types.String)),
		Impl: Impl{F3: func(a, b, c types.Value) (types.Value, *sqlerr.Error) {
			if b.S == "" {
				return a, nil
			}
			return okv(types.StringValue(strings.ReplaceAll(a.S, b.S, c.S)))
		}}},
	{Name: "strpos", Doc: "the 1-based position of sub in s, 0 if absent", Strict: true, Aliases: []string{"instr"},
		Sigs: sigs(sig(types.String, types.String, types.Int)),
		Impl: Impl{F2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
			i := strings.Index(a.S, b.S)
			if i < 0 {
				return okv(types.IntValue(0))
			}
			return okv(types.IntValue(int64(utf8.RuneCountInString(a.S[:i])) + 1))
		}}},
	{Name: "starts_with", Doc: "whether s starts with prefix", Strict: true,
		Sigs: sigs(sig(types.String, types.String, types.Bool)),
		Impl: Impl{F2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
			return okv(types.BoolValue(strings.HasPrefix(a.S, b.S)))
		}}},
	{Name: "split_part", Doc: "the n-th field of s split by delimiter (negative n counts from the end)", Strict: true,
		Sigs: sigs(sig(types.String, types.String, types.Int, types.String)), Impl: Impl{F3: splitPart}},
	{Name: "left", Doc: "the first n characters (all but the last -n when negative)", Strict: true,
		Sigs: sigs(sig(types.String, types.Int, types.String)),
		Impl: Impl{F2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
			_, k := edgeCount(a.S, b.I)
			return okv(types.StringValue(Substr(a.S, 1, k)))
		}}},
	{Name: "right", Doc: "the last n characters (all but the first -n when negative)", Strict: true,
		Sigs: sigs(sig(types.String, types.Int, types.String)),
		Impl: Impl{F2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
			n, k := edgeCount(a.S, b.I)
			k = min(k, n)
			return okv(types.StringValue(Substr(a.S, n-k+1, k)))
		}}},
	{Name: "md5", Doc: "the MD5 hash (of text's or BYTEA's bytes) as 32 hexadecimal digits", Strict: true,
		Sigs: sigs(sig(types.String, types.String), sig(types.Bytea, types.String)),
		Impl: strFn(func(s string) string {
			h := md5.Sum([]byte(s))
			return hex.EncodeToString(h[:])
		})},
}

// Text formats v as a cast to VARCHAR does (booleans as true/false).
func Text(v types.Value) string {
	switch v.K {
	case types.String:
		return v.S
	case types.Bool:
		if v.I != 0 {
			return "true"
		}
		return "false"
	}
	return v.String()
}

func strFn(f func(string) string) Impl {
	return Impl{F1: func(a types.Value) (types.Value, *sqlerr.Error) { return okv(types.StringValue(f(a.S))) }}
}

func trimFn(f func(string, string) string) Impl {
	return Impl{
		F1: func(a types.Value) (types.Value, *sqlerr.Error) { return okv(types.StringValue(f(a.S, " "))) },
		F2: func(a, b types.Value) (types.Value, *sqlerr.Error) { return okv(types.StringValue(f(a.S, b.S))) },
	}
}

func concat(args []types.Value) (types.Value, *sqlerr.Error) {
	var b strings.Builder
	for _, v := range args {
		b.WriteString(Text(v))
	}
	return okv(types.StringValue(b.String()))
}

func concatWS(args []types.Value) (types.Value, *sqlerr.Error) {
	if args[0].K == types.Null {
		return okv(types.NullValue)
	}
	var b strings.Builder
	first := true
	for _, v := range args[1:] {
		if v.K == types.Null {
			continue
		}
		if !first {
			b.WriteString(args[0].S)
		}
		first = false
		b.WriteString(Text(v))
	}
	return okv(types.StringValue(b.String()))
}

// maxPad bounds the length lpad and rpad build, as Postgres bounds a
// text value (1 GB); beyond it the call fails instead of exhausting memory.
const maxPad = 1 << 28

var errPadTooLong = sqlerr.New("54000", "requested length too large")

// padFn is LPAD (left) or RPAD: pad s with fill to n characters, or
// truncate it to n; an empty fill leaves s (truncated) as it is.
func padFn(left bool) Impl {
	pad := func(s string, n int64, fill string) (types.Value, *sqlerr.Error) {
		if n <= 0 {
			return okv(types.StringValue(""))
		}
		if n > maxPad {
			return types.NullValue, errPadTooLong
		}
		have := int64(utf8.RuneCountInString(s))
		if have >= n || fill == "" {
			return okv(types.StringValue(Substr(s, 1, n)))
		}
		fr := []rune(fill)
		var b strings.Builder
		if !left {
			b.WriteString(s)
		}
		for i := int64(0); i < n-have; i++ {
			b.WriteRune(fr[i%int64(len(fr))])
		}
		if left {
			b.WriteString(s)
		}
		return okv(types.StringValue(b.String()))
	}
	return Impl{
		F2: func(a, b types.Value) (types.Value, *sqlerr.Error) { return pad(a.S, b.I, " ") },
		F3: func(a, b, c types.Value) (types.Value, *sqlerr.Error) { return pad(a.S, b.I, c.S) },
	}
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// initcap upper-cases the first letter of each word and lower-cases the
// rest; words are runs of letters and digits, as in Postgres.
func initcap(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inWord := false
	for _, r := range s {
		if inWord {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
		inWord = unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return b.String()
}

// Substr returns count runes of s from 1-based position start, as
// Postgres's SUBSTR does (a start below 1 eats into the count).
func Substr(s string, start, count int64) string {
	end := int64(math.MaxInt64)
	if start <= 0 || count < math.MaxInt64-start { // start + count does not overflow
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

// edgeCount is left's and right's character count: n is s's length in
// characters and k the characters to take, k itself or, when negative,
// all but its magnitude (never below 0).
func edgeCount(s string, k int64) (n, take int64) {
	n = int64(utf8.RuneCountInString(s))
	if k < 0 {
		k = max(n+k, 0)
	}
	return n, k
}
