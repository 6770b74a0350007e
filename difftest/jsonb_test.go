package difftest

// JSONB productions. A JSONB expression (kind kJSON) is a constant
// document or one built from the row with jsonb_build_object; the corpus
// never selects one directly but reads it through the JSONB operators and
// functions, which give text, booleans and integers, so answers compare
// as text exactly like Postgres prints them.

// jsonDocs are constant documents: nested objects and arrays, a scalar,
// numbers with trailing zeros, duplicate keys (the last wins) and keys
// that sort by length first.
var jsonDocs = []string{
	`'{"a": {"b": [1, 2.50, "x"]}, "arr": [1, "x", null, {"k": true}], "s": "str", "n": null, "bb": 1, "a1": 0}'`,
	`'[1, [2, 3], {"a": 1}, "a"]'`,
	`'{"s": "dup", "s": "last", "arr": [], "d": 1.0}'`,
	`'"a"'`,
	`'12.50'`,
	`'{"a": {"b": [1]}, "arr": [{"k": true}], "i": 3}'`,
}

// jsonKeys are the keys and paths the operators look up: present in some
// documents, absent from others.
var (
	jsonKeys  = []string{"'a'", "'s'", "'arr'", "'i'", "'d'", "'t'", "'zz'", "'b'", "'n'"}
	jsonIdx   = []string{"0", "1", "-1", "3", "9"}
	jsonPaths = []string{"'{a,b,1}'", "'{arr,3,k}'", "'{a}'", "'{}'", "'{arr,-1}'", "'{1,0}'", "'{zz,0}'"}
)

func jsonLit(g *gen) expr {
	v := g.oneOf(jsonDocs...)
	return lit{k: kJSON, st: "CAST(" + v + " AS JSONB)", pg: "CAST(" + v + " AS jsonb)"}
}

// jsonFromRow builds an object of the row's values: every kind that
// to_jsonb writes alike in both systems (not DOUBLE, whose shortest
// digits need not survive Postgres's numeric conversion the same way).
func jsonFromRow(g *gen, d int) expr {
	args := []expr{
		lit{k: kStr, st: "'i'"}, g.expr(kInt, d), lit{k: kStr, st: "'s'"}, g.expr(kStr, d),
		lit{k: kStr, st: "'d'"}, g.expr(kDec, d), lit{k: kStr, st: "'t'"}, g.expr(kTs, d),
		lit{k: kStr, st: "'b'"}, g.expr(kBool, d), lit{k: kStr, st: "'arr'"}, jsonLit(g),
	}
	return call{fn: jsonbBuildObject, args: args}
}

var jsonbBuildObject = &scalarFunc{name: "jsonb_build_object", result: kJSON}

// jsonOp renders a JSONB operator call in both dialects (Postgres spells
// them alike).
func jsonOp(op string) func(args []string) string {
	return func(args []string) string { return "(" + args[0] + " " + op + " " + args[1] + ")" }
}

// jsonText casts a JSONB operator's result to text, the form the corpus
// compares.
func jsonText(op string) func(args []string) string {
	return func(args []string) string { return "CAST((" + args[0] + " " + op + " " + args[1] + ") AS text)" }
}

func jsonArgs(keys []string) func(g *gen, d int) []expr {
	return func(g *gen, d int) []expr {
		return []expr{g.expr(kJSON, d), lit{k: kStr, st: g.oneOf(keys...)}}
	}
}

// jsonFuncs are the JSONB rows of scalarFuncs.
var jsonFuncs = []*scalarFunc{
	{name: "->", result: kStr, args: jsonArgs(jsonKeys), st: jsonText("->"), pg: jsonText("->")},
	{name: "->", result: kStr, args: jsonArgs(jsonIdx), st: jsonText("->"), pg: jsonText("->")},
	{name: "->>", result: kStr, args: jsonArgs(jsonKeys), st: jsonOp("->>"), pg: jsonOp("->>")},
	{name: "->>", result: kStr, args: jsonArgs(jsonIdx), st: jsonOp("->>"), pg: jsonOp("->>")},
	{name: "#>", result: kStr, args: jsonArgs(jsonPaths), st: jsonText("#>"), pg: jsonText("#>")},
	{name: "#>>", result: kStr, args: jsonArgs(jsonPaths), st: jsonOp("#>>"), pg: jsonOp("#>>")},
	{name: "?", result: kBool, args: jsonArgs(jsonKeys), st: jsonOp("?"), pg: jsonOp("?")},
	{name: "@>", result: kBool, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kJSON, d), g.expr(kJSON, d)}
	}, st: jsonOp("@>"), pg: jsonOp("@>")},
	{name: "jsonb_typeof", result: kStr, args: func(g *gen, d int) []expr { return []expr{g.expr(kJSON, d)} }},
	{name: "jsonb_array_length", result: kInt, args: func(g *gen, d int) []expr {
		return []expr{call{fn: jsonArrayOf, args: []expr{g.expr(kJSON, d)}}}
	}},
	// A document's text and a document read back from text.
	{name: "jsonb_text", result: kStr, args: func(g *gen, d int) []expr { return []expr{g.expr(kJSON, d)} },
		st: func(a []string) string { return "CAST(CAST(CAST(" + a[0] + " AS VARCHAR) AS JSONB) AS VARCHAR)" },
		pg: func(a []string) string { return "CAST(CAST(CAST(" + a[0] + " AS text) AS jsonb) AS text)" }},
}

// jsonArrayOf is the array a document holds under "arr" (an array in
// every document that has one), or an empty array: jsonb_array_length's
// domain, where Postgres raises no error.
var jsonArrayOf = &scalarFunc{name: "coalesce", result: kJSON,
	st: func(a []string) string {
		return "coalesce(CASE WHEN jsonb_typeof(" + a[0] + " -> 'arr') = 'array' THEN " + a[0] + " -> 'arr' END, CAST('[]' AS JSONB))"
	},
	pg: func(a []string) string {
		return "coalesce(CASE WHEN jsonb_typeof(" + a[0] + " -> 'arr') = 'array' THEN " + a[0] + " -> 'arr' END, CAST('[]' AS jsonb))"
	}}
