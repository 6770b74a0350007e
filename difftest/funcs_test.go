package difftest

import (
	"strings"
)

// scalarFunc is one built-in of the funcs registry as the corpus calls
// it: its streaming name (st overrides the spelling, e.g. an alias), the
// kind it returns, how to draw its arguments (args keeps them in the
// domain where Postgres does not raise an error: no log of zero, no
// negative substring length) and, when Postgres spells or types it
// differently, its Postgres rendering.
type scalarFunc struct {
	name   string
	result kind
	args   func(g *gen, d int) []expr
	st, pg func(args []string) string
}

// args helpers.
func kinds(ks ...kind) func(g *gen, d int) []expr {
	return func(g *gen, d int) []expr {
		out := make([]expr, len(ks))
		for i, k := range ks {
			out[i] = g.expr(k, d)
		}
		return out
	}
}

func withConsts(k kind, consts ...[]string) func(g *gen, d int) []expr {
	return func(g *gen, d int) []expr {
		out := []expr{g.expr(k, d)}
		for _, c := range consts {
			out = append(out, lit{k: kInt, st: g.oneOf(c...)})
		}
		return out
	}
}

// variadic draws 2 or 3 arguments of one kind.
func variadic(k kind) func(g *gen, d int) []expr {
	return func(g *gen, d int) []expr {
		out := []expr{g.expr(k, d), g.expr(k, d)}
		if g.pick(2) == 0 {
			out = append(out, g.expr(k, d))
		}
		return out
	}
}

// absLeaf is abs(leaf) (+ 1 for logarithms): the math functions'
// domain, over a column or constant so that nesting cannot overflow.
func absLeaf(plus1 bool) func(g *gen, d int) []expr {
	return func(g *gen, _ int) []expr {
		var x expr = call{fn: absFloat, args: []expr{g.leaf(kFloat)}}
		if plus1 {
			x = binary{op: "+", l: x, r: lit{k: kFloat, st: "CAST(1 AS DOUBLE)", pg: "CAST(1 AS float8)"}, k: kFloat}
		}
		return []expr{x}
	}
}

// absDecLeaf is absLeaf over numerics.
func absDecLeaf(plus1 bool) func(g *gen, d int) []expr {
	return func(g *gen, _ int) []expr {
		var x expr = call{fn: absDec, args: []expr{g.leaf(kDec)}}
		if plus1 {
			x = binary{op: "+", l: x, r: lit{k: kDec, st: "1"}, k: kDec}
		}
		return []expr{x}
	}
}

// intOf renders the BIGINT forms of floor, ceil, round and sign, which
// streamsql keeps BIGINT (funcs/) and Postgres computes in double
// precision (printing -0 for ceil(-0.5)-like zeros).
func intOf(name string) func(args []string) string {
	return func(args []string) string { return "CAST(" + name + "(" + args[0] + ") AS bigint)" }
}

func pgTemplate(tmpl string) func(args []string) string {
	return func(args []string) string {
		s := tmpl
		for i, a := range args {
			s = strings.ReplaceAll(s, "$"+string(rune('1'+i)), a)
		}
		return s
	}
}

// pgConcat renders CONCAT and || as Postgres' ||, which, like streamsql's
// CONCAT (funcs/), is NULL when any argument is NULL.
func pgConcat(args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = "CAST(" + a + " AS text)"
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

// extractUnits are the units EXTRACT's syntax takes (MySQL's unit words,
// which the TiDB grammar knows; SECOND first, the one that is a double);
// intPartUnits and floatPartUnit are every unit of
// funcs.ExtractUnits, through DATE_PART. Both render as Postgres'
// date_part (double precision), which prints whole numbers as integers.
var (
	extractUnits = []string{"SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR", "MICROSECOND",
		"DOW", "ISODOW", "DOY", "ISOYEAR", "DECADE", "CENTURY", "MILLENNIUM"}
	intPartUnits = []string{"microseconds", "milliseconds", "minute", "hour", "day", "dow", "isodow", "doy", "week",
		"month", "quarter", "year", "isoyear", "decade", "century", "millennium"}
	truncUnits    = []string{"microseconds", "milliseconds", "second", "minute", "hour", "day", "week", "month", "quarter", "year", "decade", "century", "millennium"}
	unitToPGPart  = map[string]string{"MICROSECOND": "microseconds"}
	floatPartUnit = []string{"second", "epoch", "julian"}
)

// extractCall draws EXTRACT's unit word and timestamp.
func extractCall(units []string) func(g *gen, d int) []expr {
	return func(g *gen, d int) []expr {
		return []expr{lit{k: kStr, st: g.oneOf(units...)}, g.expr(kTs, d)}
	}
}

func stExtract(args []string) string { return "EXTRACT(" + args[0] + " FROM " + args[1] + ")" }

func unitArg(units []string) func(g *gen, d int) []expr {
	return func(g *gen, d int) []expr {
		return []expr{lit{k: kStr, st: "'" + g.oneOf(units...) + "'"}, g.expr(kTs, d)}
	}
}

func pgExtract(args []string) string {
	u := strings.ToLower(args[0])
	if p, ok := unitToPGPart[args[0]]; ok {
		u = p
	}
	return "date_part('" + u + "', " + args[1] + ")"
}

// pgExtractInt is pgExtract for the units streamsql's EXTRACT returns as
// BIGINT: Postgres' date_part is a double, and a double in arithmetic
// with a numeric makes a double where streamsql makes a DECIMAL.
func pgExtractInt(args []string) string { return "CAST(trunc(" + pgExtract(args) + ") AS bigint)" }

// secondsArg is the DOUBLE seconds argument v of make_timestamp.
func secondsArg(v string) expr {
	return lit{k: kFloat, st: "CAST(" + v + " AS DOUBLE)", pg: "CAST(" + v + " AS float8)"}
}

// scalarFuncs is the corpus' function list. TestCorpusCoversEveryFunction
// checks that every function funcs.Names lists (but now(), which a
// view refuses) is called by some production here or in exprProductions.
var scalarFuncs = []*scalarFunc{
	// Conditional.
	{name: "coalesce", result: kInt, args: variadic(kInt)},
	{name: "coalesce", result: kStr, args: variadic(kStr)},
	{name: "coalesce", result: kDec, args: variadic(kDec)},
	{name: "coalesce", result: kTs, args: variadic(kTs)},
	{name: "greatest", result: kInt, args: variadic(kInt)},
	{name: "greatest", result: kTs, args: variadic(kTs)},
	{name: "least", result: kFloat, args: variadic(kFloat)},
	{name: "least", result: kStr, args: variadic(kStr)},
	{name: "nullif", result: kInt, args: kinds(kInt, kInt)},
	{name: "nullif", result: kStr, args: kinds(kStr, kStr)},
	{name: "ifnull", result: kInt, args: kinds(kInt, kInt), pg: pgTemplate("coalesce($1, $2)")},
	// String.
	{name: "concat", result: kStr, args: func(g *gen, d int) []expr {
		ks := []kind{kStr, kInt, kTs, kBool}
		return []expr{g.expr(kStr, d), g.expr(ks[g.pick(len(ks))], d), g.expr(ks[g.pick(len(ks))], d)}
	}, pg: pgConcat},
	{name: "||", result: kStr, args: kinds(kStr, kStr), st: pgTemplate("($1 || $2)"), pg: pgConcat},
	{name: "lower", result: kStr, args: kinds(kStr)},
	{name: "upper", result: kStr, args: kinds(kStr)},
	{name: "length", result: kInt, args: kinds(kStr)},
	{name: "char_length", result: kInt, args: kinds(kStr)},
	{name: "substr", result: kStr, args: withConsts(kStr, []string{"-1", "0", "1", "2", "5"})},
	{name: "substr", result: kStr, args: withConsts(kStr, []string{"-1", "0", "1", "2", "5"}, []string{"0", "1", "3"})},
	{name: "substring", result: kStr, args: withConsts(kStr, []string{"2"}, []string{"2"})},
	{name: "trim", result: kStr, args: kinds(kStr)},
	{name: "ltrim", result: kStr, args: kinds(kStr)},
	{name: "rtrim", result: kStr, args: kinds(kStr)},
	{name: "btrim", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf("'x'", "' a'", "'ax '")}}
	}},
	{name: "ltrim", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf("'x'", "' a'")}}
	}},
	{name: "rtrim", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf("'x'", "'c '")}}
	}},
	{name: "replace", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf("'a'", "' '", "''")}, lit{k: kStr, st: g.oneOf("'xy'", "''")}}
	}},
	{name: "strpos", result: kInt, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf("'a'", "'b'", "''", "' '")}}
	}},
	{name: "instr", result: kInt, args: kinds(kStr, kStr), pg: pgTemplate("strpos($1, $2)")},
	{name: "split_part", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf("' '", "'b'")}, lit{k: kInt, st: g.oneOf("1", "2", "3")}}
	}},
	{name: "concat_ws", result: kStr, args: func(g *gen, d int) []expr {
		ks := []kind{kStr, kInt, kTs, kStr}
		out := []expr{lit{k: kStr, st: g.oneOf("','", "''", "' - '")}, g.expr(kStr, d), g.expr(ks[g.pick(len(ks))], d)}
		if g.pick(2) == 0 {
			out = append(out, g.expr(ks[g.pick(len(ks))], d))
		}
		return out
	}},
	{name: "lpad", result: kStr, args: withConsts(kStr, []string{"-1", "0", "2", "8"})},
	{name: "rpad", result: kStr, args: withConsts(kStr, []string{"-1", "0", "2", "8"})},
	{name: "lpad", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kInt, st: g.oneOf("0", "3", "9")}, lit{k: kStr, st: g.oneOf("'xy'", "''", "'*'")}}
	}},
	{name: "rpad", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kInt, st: g.oneOf("0", "3", "9")}, lit{k: kStr, st: g.oneOf("'xy'", "''", "'é'")}}
	}},
	{name: "reverse", result: kStr, args: kinds(kStr)},
	{name: "initcap", result: kStr, args: kinds(kStr)},
	{name: "md5", result: kStr, args: kinds(kStr)},
	{name: "starts_with", result: kBool, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf("'a'", "''", "'he'", "'abc'")}}
	}},
	{name: "regexp_like", result: kBool, args: func(g *gen, d int) []expr {
		out := []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf(regexPatterns...)}}
		if g.pick(2) == 0 {
			out = append(out, lit{k: kStr, st: g.oneOf("'i'", "'c'", "'n'")})
		}
		return out
	}},
	{name: "regexp_count", result: kInt, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf(regexPatterns...)}}
	}},
	{name: "regexp_replace", result: kStr, args: func(g *gen, d int) []expr {
		out := []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf(regexPatterns...)}, lit{k: kStr, st: g.oneOf("'X'", "''", "'<\\&>'", "'\\2\\1'")}}
		if g.pick(2) == 0 {
			out = append(out, lit{k: kStr, st: g.oneOf("'g'", "'i'", "'gi'")})
		}
		return out
	}},
	{name: "left", result: kStr, args: withConsts(kStr, []string{"-2", "0", "1", "3"})},
	{name: "right", result: kStr, args: withConsts(kStr, []string{"-2", "0", "1", "3"})},
	// Math.
	{name: "abs", result: kInt, args: kinds(kInt)},
	absFloat,
	{name: "floor", result: kInt, args: kinds(kInt), pg: intOf("floor")},
	{name: "floor", result: kFloat, args: kinds(kFloat)},
	{name: "ceil", result: kFloat, args: kinds(kFloat)},
	{name: "ceiling", result: kInt, args: kinds(kInt), pg: intOf("ceiling")},
	{name: "sign", result: kInt, args: kinds(kInt), pg: intOf("sign")},
	{name: "sign", result: kFloat, args: kinds(kFloat)},
	{name: "round", result: kInt, args: kinds(kInt), pg: intOf("round")},
	// ROUND rounds half away from zero (funcs/); Postgres' float8
	// round rounds half to even, its numeric round away from zero.
	{name: "round", result: kFloat, args: kinds(kFloat), pg: pgTemplate("CAST(round(CAST($1 AS numeric)) AS float8)")},
	{name: "round", result: kFloat, args: withConsts(kFloat, []string{"0", "1", "2"}), pg: pgTemplate("CAST(round(CAST($1 AS numeric), $2) AS float8)")},
	{name: "abs", result: kDec, args: kinds(kDec)},
	{name: "floor", result: kDec, args: kinds(kDec)},
	{name: "ceil", result: kDec, args: kinds(kDec)},
	{name: "sign", result: kDec, args: kinds(kDec)},
	{name: "round", result: kDec, args: kinds(kDec)},
	{name: "round", result: kDec, args: withConsts(kDec, []string{"-1", "0", "1", "3"})},
	{name: "trunc", result: kDec, args: kinds(kDec)},
	{name: "trunc", result: kDec, args: withConsts(kDec, []string{"-1", "0", "1", "3"})},
	{name: "trunc", result: kFloat, args: kinds(kFloat)},
	{name: "trunc", result: kInt, args: kinds(kInt), pg: intOf("trunc")},
	{name: "mod", result: kInt, args: withConsts(kInt, []string{"2", "-3", "7"})},
	{name: "mod", result: kDec, args: func(g *gen, d int) []expr {
		v := g.oneOf("0.30", "2.00", "-1.50")
		return []expr{g.expr(kDec, d), lit{k: kDec, st: "CAST(" + v + " AS DECIMAL(10,2))", pg: "CAST(" + v + " AS numeric(10,2))"}}
	}},
	{name: "power", result: kFloat, args: func(g *gen, _ int) []expr {
		n := g.oneOf("0", "2", "3")
		return []expr{g.leaf(kFloat), lit{k: kFloat, st: "CAST(" + n + " AS DOUBLE)", pg: "CAST(" + n + " AS float8)"}}
	}},
	// A fractional exponent of a positive base: the result is rarely a
	// short decimal, so its last digit shows whether it is rounded as
	// Postgres's C library rounds it.
	{name: "power", result: kFloat, args: func(g *gen, d int) []expr {
		n := g.oneOf("0.5", "2.5", "-1.5")
		return append(absLeaf(true)(g, d), lit{k: kFloat, st: "CAST(" + n + " AS DOUBLE)", pg: "CAST(" + n + " AS float8)"})
	}},
	{name: "pow", result: kFloat, args: func(g *gen, _ int) []expr {
		return []expr{g.leaf(kFloat), lit{k: kInt, st: "2"}}
	}, pg: pgTemplate("power($1, $2)")},
	{name: "sqrt", result: kFloat, args: absLeaf(false)},
	{name: "ln", result: kFloat, args: absLeaf(true)},
	{name: "log10", result: kFloat, args: absLeaf(true)},
	{name: "log", result: kFloat, args: absLeaf(true)},
	// Two-argument LOG is numeric only: Postgres wants a double argument
	// cast to numeric, which streamsql does itself, answering numeric.
	{name: "log", result: kDec, args: func(g *gen, d int) []expr {
		return append([]expr{lit{k: kFloat, st: "CAST(2 AS DOUBLE)", pg: "2"}}, absLeaf(true)(g, d)...)
	}, pg: pgTemplate("log(CAST($1 AS numeric), CAST($2 AS numeric))")},
	{name: "exp", result: kFloat, args: func(g *gen, _ int) []expr { return []expr{g.leaf(kFloat)} }},
	// The NUMERIC overloads, with Postgres's result scales.
	{name: "ln", result: kDec, args: absDecLeaf(true)},
	{name: "log", result: kDec, args: absDecLeaf(true)},
	{name: "log", result: kDec, args: func(g *gen, d int) []expr {
		return append([]expr{lit{k: kDec, st: g.oneOf("2.0", "10", "0.5", "1.10")}}, absDecLeaf(true)(g, d)...)
	}},
	{name: "sqrt", result: kDec, args: absDecLeaf(false)},
	{name: "exp", result: kDec, args: func(g *gen, _ int) []expr {
		ten := lit{k: kDec, st: "CAST(10 AS DECIMAL(10,2))", pg: "CAST(10 AS numeric(10,2))"}
		return []expr{call{fn: &scalarFunc{name: "mod", result: kDec}, args: []expr{g.leaf(kDec), ten}}}
	}},
	{name: "power", result: kDec, args: func(g *gen, d int) []expr {
		return append(absDecLeaf(true)(g, d), lit{k: kDec, st: g.oneOf("0.5", "2.5", "-1.5", "3", "-2", "3.0")})
	}},
	// Time.
	{name: "extract", result: kInt, args: extractCall(extractUnits[1:]), st: stExtract, pg: pgExtractInt},
	{name: "extract", result: kFloat, args: extractCall(extractUnits[:1]), st: stExtract, pg: pgExtract},
	// The integer units are BIGINT in streamsql, truncated (funcs/);
	// Postgres gives milliseconds and microseconds with their fraction.
	{name: "date_part", result: kInt, args: unitArg(intPartUnits), pg: pgTemplate("CAST(trunc(date_part($1, $2)) AS bigint)")},
	{name: "date_part", result: kFloat, args: unitArg(floatPartUnit), pg: pgTemplate("date_part($1, $2)")},
	{name: "date_trunc", result: kTs, args: unitArg(truncUnits)},
	{name: "date_bin", result: kTs, args: func(g *gen, d int) []expr {
		return []expr{lit{k: kStr, st: g.oneOf("'15 minutes'", "'1 hour'", "'7 seconds'", "'1 day'")}, g.expr(kTs, d), g.lit(kTs)}
	}},
	{name: "make_timestamp", result: kTs, args: func(g *gen, d int) []expr {
		return []expr{
			lit{k: kInt, st: g.oneOf("2024", "1999", "1")}, lit{k: kInt, st: g.oneOf("1", "2", "12")},
			lit{k: kInt, st: g.oneOf("1", "15", "28")}, g.expr(kInt, d), lit{k: kInt, st: g.oneOf("0", "30", "59")},
			secondsArg(g.oneOf("0", "59.5", "1.25")),
		}
	}, pg: pgTemplate("make_timestamp(CAST($1 AS int), CAST($2 AS int), CAST($3 AS int), CAST(abs($4) % 24 AS int), CAST($5 AS int), $6)"),
		st: pgTemplate("make_timestamp($1, $2, $3, abs($4) % 24, $5, $6)")},
	{name: "to_timestamp", result: kTs, args: func(g *gen, _ int) []expr { return []expr{g.leaf(kFloat)} },
		pg: pgTemplate("(to_timestamp($1) AT TIME ZONE 'UTC')")},
	// Formatting: templates whose every pattern streamsql implements.
	{name: "to_char", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kTs, d), lit{k: kStr, st: g.oneOf(tsTemplates...)}}
	}},
	{name: "to_char", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr([]kind{kInt, kDec, kFloat}[g.pick(3)], d), lit{k: kStr, st: g.oneOf(numTemplates...)}}
	}},
	{name: "to_timestamp", result: kTs, args: func(g *gen, d int) []expr {
		tmpl := g.oneOf(tsTemplates[:3]...)
		return []expr{call{fn: &scalarFunc{name: "to_char"}, args: []expr{g.expr(kTs, d), lit{k: kStr, st: tmpl}}}, lit{k: kStr, st: tmpl}}
	}, pg: pgTemplate("(to_timestamp($1, $2) AT TIME ZONE 'UTC')")},
}

// tsTemplates are TO_CHAR timestamp templates; the first three read back
// with TO_TIMESTAMP.
var tsTemplates = []string{
	"'YYYY-MM-DD HH24:MI:SS'", "'DD Mon YYYY HH12:MI:SS AM'", "'YYYYMMDD HH24MISS.US'",
	"'FMDay, FMDDth FMMonth YYYY'", "'DY dy Mon MONTH Q CC J D ID DDD IDDD WW IW W'",
	"'IYYY-IW-ID YY Y,YYY RM MS SSSS'", "'\"week\" WW a.m. HH12'",
}

// numTemplates are TO_CHAR number templates.
var numTemplates = []string{
	"'FM999990.00'", "'999,999.99'", "'S9999.99'", "'9999.99PR'", "'FM9999.99MI'", "'0999'", "'SG9999'", "'FM9.99'",
}

func init() {
	for _, fs := range [][]*scalarFunc{jsonFuncs, byteaFuncs, arrayFuncs, similarFuncs, regexOpFuncs} {
		scalarFuncs = append(scalarFuncs, fs...)
	}
}

func init() {
	for _, f := range scalarFuncs {
		funcsByResult[f.result] = append(funcsByResult[f.result], f)
	}
}

// funcsByResult indexes scalarFuncs by result kind.
var funcsByResult = map[kind][]*scalarFunc{}

// absFloat is abs over doubles, which absLeaf also wraps arguments in.
var absFloat = &scalarFunc{name: "abs", result: kFloat, args: kinds(kFloat)}

// absDec is abs over numerics, which absDecLeaf wraps arguments in.
var absDec = &scalarFunc{name: "abs", result: kDec, args: kinds(kDec)}
