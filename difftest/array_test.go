package difftest

// Array productions. An array expression (kind kArray, a BIGINT[]) is
// built with ARRAY[...] from the row or read from a literal; text arrays
// come from string_to_array, regexp_match and regexp_split_to_array. The
// corpus reads arrays through their text form and the array functions,
// which print alike in both systems.

// arrayLiterals are BIGINT[] constants: empty, with NULLs, negative.
var arrayLiterals = []string{`'{}'`, `'{1,2,3}'`, `'{NULL,7}'`, `'{-4, 0 ,2}'`, `'{3}'`}

func arrayLit(g *gen) expr {
	v := g.oneOf(arrayLiterals...)
	return lit{k: kArray, st: "CAST(" + v + " AS BIGINT[])", pg: "CAST(" + v + " AS bigint[])"}
}

// arrayProductions build BIGINT[] expressions: ARRAY[...] of two or three
// integer expressions.
var arrayProductions = []func(g *gen, d int) expr{
	func(g *gen, d int) expr {
		return call{fn: arrayCtor, args: variadic(kInt)(g, d)}
	},
}

var arrayCtor = &scalarFunc{name: "array", result: kArray,
	st: func(a []string) string { return "ARRAY[" + joinArgs(a) + "]" },
	pg: func(a []string) string { return "ARRAY[" + joinArgs(a) + "]::bigint[]" }}

func joinArgs(a []string) string {
	s := ""
	for i, x := range a {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

func arrayArg(g *gen, d int) []expr { return []expr{g.expr(kArray, d)} }

// textOf reads a text array as text.
func textOf(fn string) (st, pg func(a []string) string) {
	return func(a []string) string { return "CAST(" + fn + "(" + joinArgs(a) + ") AS VARCHAR)" },
		func(a []string) string { return "CAST(" + fn + "(" + joinArgs(a) + ") AS text)" }
}

var (
	stStringToArray, pgStringToArray = textOf("string_to_array")
	stRegexpMatch, pgRegexpMatch     = textOf("regexp_match")
	stRegexpSplit, pgRegexpSplit     = textOf("regexp_split_to_array")
)

// arrayFuncs are the array rows of scalarFuncs.
var arrayFuncs = []*scalarFunc{
	{name: "array_text", result: kStr, args: arrayArg,
		st: func(a []string) string { return "CAST(" + a[0] + " AS VARCHAR)" },
		pg: func(a []string) string { return "CAST(" + a[0] + " AS text)" }},
	{name: "array_to_string", result: kStr, args: func(g *gen, d int) []expr {
		out := []expr{g.expr(kArray, d), lit{k: kStr, st: g.oneOf("','", "''", "' - '")}}
		if g.pick(2) == 0 {
			out = append(out, lit{k: kStr, st: "'*'"})
		}
		return out
	}},
	{name: "cardinality", result: kInt, args: arrayArg},
	{name: "array_length", result: kInt, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kArray, d), lit{k: kInt, st: g.oneOf("1", "1", "2")}}
	}},
	{name: "[]", result: kInt, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kArray, d), lit{k: kInt, st: g.oneOf("0", "1", "2", "3", "4")}}
	}, st: subscript, pg: subscript},
	{name: "array_cmp", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kArray, d), g.expr(kArray, d)}
	}, st: func(a []string) string { return "CAST((" + a[0] + " < " + a[1] + ") AS VARCHAR)" },
		pg: func(a []string) string { return "CAST((" + a[0] + " < " + a[1] + ") AS text)" }},
	{name: "string_to_array", result: kStr, args: func(g *gen, d int) []expr {
		out := []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf("' '", "'a'", "''", "'l'")}}
		if g.pick(2) == 0 {
			out = append(out, lit{k: kStr, st: g.oneOf("'b'", "''")})
		}
		return out
	}, st: stStringToArray, pg: pgStringToArray},
	{name: "regexp_match", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf(regexPatterns...)}}
	}, st: stRegexpMatch, pg: pgRegexpMatch},
	{name: "regexp_split_to_array", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf("'\\s+'", "'l'", "''", "'x*'", "'[ab]'")}}
	}, st: stRegexpSplit, pg: pgRegexpSplit},
}

func subscript(a []string) string { return "(" + a[0] + ")[" + a[1] + "]" }
