package difftest

// BYTEA productions. A BYTEA expression (kind kBytea) is a constant in
// the hex or the escape form, text converted or decoded, a hash or a
// concatenation; the corpus reads it through encode, md5, length and
// comparisons, and as its text form (the same `\x…` in both systems).

// byteaLiterals are constant byte strings: empty, a zero byte, high bytes,
// a backslash and a quote, in both input forms.
var byteaLiterals = []string{`'\x'`, `'\x00ff5c27'`, `'\xDEADbeef'`, `'abc'`, `'a\\b\000\377'`, `'\x41 42'`}

func byteaLit(g *gen) expr {
	v := g.oneOf(byteaLiterals...)
	return lit{k: kBytea, st: "CAST(" + v + " AS BYTEA)", pg: "CAST(" + v + " AS bytea)"}
}

// byteaProductions build BYTEA expressions from text and other BYTEA
// ones: decode's hex and base64 arguments are constants, which decode.
var byteaProductions = []func(g *gen, d int) expr{
	func(g *gen, d int) expr {
		return call{fn: byteaFunc("convert_to", kBytea), args: []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf("'UTF8'", "'utf-8'")}}}
	},
	func(g *gen, d int) expr {
		pairs := [][2]string{{"'00ff 10'", "'hex'"}, {"'AP9cJw=='", "'base64'"}, {"'YWJj\nZA=='", "'base64'"}, {`'a\\b\001'`, "'escape'"}}
		p := pairs[g.pick(len(pairs))]
		return call{fn: byteaFunc("decode", kBytea), args: []expr{lit{k: kStr, st: p[0]}, lit{k: kStr, st: p[1]}}}
	},
	func(g *gen, d int) expr {
		return call{fn: byteaFunc("sha256", kBytea), args: []expr{g.expr(kBytea, d)}}
	},
	func(g *gen, d int) expr {
		return call{fn: byteaConcat, args: []expr{g.expr(kBytea, d), g.expr(kBytea, d)}}
	},
}

func byteaFunc(name string, result kind) *scalarFunc {
	return &scalarFunc{name: name, result: result}
}

var byteaConcat = &scalarFunc{name: "||", result: kBytea, st: jsonOp("||"), pg: jsonOp("||")}

func byteaArg(g *gen, d int) []expr { return []expr{byteaExpr(g, d)} }

// byteaExpr is a BYTEA expression, half the time a production whatever
// the depth left, so that every BYTEA function shows up in a short run.
func byteaExpr(g *gen, d int) expr {
	if g.pick(2) == 0 {
		return byteaProductions[g.pick(len(byteaProductions))](g, max(d-1, 0))
	}
	return g.expr(kBytea, d)
}

// byteaProductionRows are one row per production, read as hex, so that
// the function sweep calls every BYTEA-building function too.
func byteaProductionRows() []*scalarFunc {
	var out []*scalarFunc
	for i := range byteaProductions {
		p := byteaProductions[i]
		out = append(out, &scalarFunc{name: "bytea_production", result: kStr,
			args: func(g *gen, d int) []expr { return []expr{p(g, d)} },
			st:   func(a []string) string { return "encode(" + a[0] + ", 'hex')" },
			pg:   func(a []string) string { return "encode(" + a[0] + ", 'hex')" }})
	}
	return out
}

// byteaFuncs are the BYTEA rows of scalarFuncs.
var byteaFuncs = append(byteaProductionRows(), []*scalarFunc{
	{name: "encode", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{byteaExpr(g, d), lit{k: kStr, st: g.oneOf("'hex'", "'base64'", "'escape'")}}
	}},
	{name: "md5", result: kStr, args: byteaArg},
	{name: "bytea_text", result: kStr, args: byteaArg,
		st: func(a []string) string { return "CAST(" + a[0] + " AS VARCHAR)" },
		pg: func(a []string) string { return "CAST(" + a[0] + " AS text)" }},
	{name: "convert_from", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{call{fn: byteaFunc("convert_to", kBytea), args: []expr{g.expr(kStr, d), lit{k: kStr, st: "'UTF8'"}}}, lit{k: kStr, st: "'UTF8'"}}
	}},
	{name: "length", result: kInt, args: byteaArg},
	{name: "octet_length", result: kInt, args: byteaArg},
	// Comparisons (memcmp, then length), read as text.
	{name: "bytea_cmp", result: kStr, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kBytea, d), g.expr(kBytea, d)}
	}, st: func(a []string) string { return "CAST((" + a[0] + " < " + a[1] + ") AS VARCHAR)" },
		pg: func(a []string) string { return "CAST((" + a[0] + " < " + a[1] + ") AS text)" }},
}...)
