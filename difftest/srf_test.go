package difftest

import "strings"

// Set-returning productions: a source joined with the rows of unnest,
// jsonb_array_elements, jsonb_array_elements_text or generate_series of
// expressions of its row (LATERAL), in the forms FROM a, f(...), CROSS JOIN LATERAL and
// LEFT JOIN LATERAL ... ON true, with or without WITH ORDINALITY. The
// select list and filter may read the function's column. Postgres runs
// the same text; the JSON argument is always an array (jsonArrayOf), the
// domain where Postgres raises no error, and a series is short (its stop
// a remainder).
type setFrom struct {
	src   string
	fn    string // unnest, jsonb_array_elements, jsonb_array_elements_text, generate_series
	args  []expr
	join  string // ", ", " CROSS JOIN LATERAL ", " LEFT JOIN LATERAL "
	ord   bool
	items items
	where expr
}

func genSetFrom(g *gen, _ *dataset) query {
	g.cols = sourceCols("")
	q := setFrom{src: sourceNames[g.pick(2)], join: g.oneOf(", ", " CROSS JOIN LATERAL ", " LEFT JOIN LATERAL "), ord: g.pick(2) == 0}
	elem := kInt
	switch g.pick(4) {
	case 0:
		q.fn, q.args = "unnest", []expr{g.expr(kArray, 2)}
	case 1:
		q.fn, q.args, elem = "jsonb_array_elements", []expr{call{fn: jsonArrayOf, args: []expr{g.expr(kJSON, 1)}}}, kJSON
	case 2:
		q.fn, q.args, elem = "jsonb_array_elements_text", []expr{call{fn: jsonArrayOf, args: []expr{g.expr(kJSON, 1)}}}, kStr
	default:
		stop := binary{op: "%", l: col{name: g.oneOf("k", "v"), k: kInt}, r: lit{k: kInt, st: "5"}, k: kInt}
		q.fn, q.args = "generate_series", []expr{lit{k: kInt, st: g.oneOf("0", "1", "-2")}, stop}
		if g.pick(2) == 0 {
			q.args = append(q.args, lit{k: kInt, st: g.oneOf("1", "2", "-1")})
		}
	}
	x := col{rel: "u", name: "x", k: elem}
	if elem == kJSON {
		// The corpus compares JSONB through its text.
		q.items = items{lit{k: kStr, st: "CAST(u.x AS VARCHAR)", pg: "CAST(u.x AS text)"}}
	} else {
		q.items = items{x}
		g.cols = append(g.cols, x)
	}
	if q.ord {
		n := col{rel: "u", name: "n", k: kInt}
		q.items = append(q.items, n)
		g.cols = append(g.cols, n)
	}
	q.items = append(q.items, col{name: "k", k: kInt})
	for range g.pick(3) {
		q.items = append(q.items, g.expr(g.anyKind(), 1))
	}
	if g.pick(3) == 0 {
		q.where = g.expr(kBool, 1)
	}
	return q
}

func (q setFrom) name() string {
	return "set_from_" + q.fn + "_" + strings.ToLower(strings.NewReplacer(",", "comma", " ", "").Replace(q.join))
}

func (q setFrom) from(d dialect) string {
	s := q.src + q.join + q.fn + "(" + joinArgs(rendered(q.args, d)) + ")"
	if q.ord {
		s += " WITH ORDINALITY AS u(x, n)"
	} else {
		s += " AS u(x)"
	}
	if strings.Contains(q.join, "LEFT") {
		s += " ON TRUE"
	}
	return s
}

func (q setFrom) stream() string {
	return "SELECT " + q.items.render(streaming) + " FROM " + q.from(streaming) + optWhere(q.where, streaming)
}

func (q setFrom) batch() string {
	return "SELECT " + q.items.render(postgres) + " FROM " + q.from(postgres) + optWhere(q.where, postgres)
}

func (q setFrom) kinds() []kind { return q.items.kinds() }
