package difftest

// SIMILAR TO productions: patterns with each SQL regular expression
// operator, an ESCAPE clause, and the NOT form.
var similarPatterns = []string{
	"'%a%'", "'a_c'", "'(a|x)%'", "'[a-c]+'", "'%l{2}%'", "'a.c'", "'%!%%' ESCAPE '!'", "'%\\_%'", "'_*'", "'(ab)+c?'", "'%[^a-z]%'",
}

var similarFuncs = []*scalarFunc{
	{name: "similar_to", result: kBool, args: func(g *gen, d int) []expr {
		return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf(similarPatterns...)}, lit{k: kStr, st: g.oneOf("", "NOT ")}}
	}, st: similarSQL, pg: similarSQL},
}

func similarSQL(a []string) string { return "(" + a[0] + " " + a[2] + "SIMILAR TO " + a[1] + ")" }

// regexOpFuncs are the regex match operators as sweep rows, so that the
// default run has each of them whatever the random draws.
var regexOpFuncs = func() []*scalarFunc {
	var out []*scalarFunc
	for _, op := range []string{"~", "~*", "!~", "!~*"} {
		render := func(a []string) string { return "(" + a[0] + " " + op + " " + a[1] + ")" }
		out = append(out, &scalarFunc{name: "regex_op", result: kBool, args: func(g *gen, d int) []expr {
			return []expr{g.expr(kStr, d), lit{k: kStr, st: g.oneOf(regexPatterns...)}}
		}, st: render, pg: render})
	}
	return out
}()
