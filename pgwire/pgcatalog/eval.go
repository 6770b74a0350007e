package pgcatalog

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Values in the evaluator are nil (NULL), bool, int64, float64, string or
// []any (arrays, int2vector, oidvector). Static types travel beside them.

type colDef struct {
	qual, name string
	t          uint32
	hidden     bool // the right side of JOIN USING: only qualified references see it
	system     bool // tableoid: never expanded by *
}

type relation struct {
	cols []colDef
	rows [][]any
	// table names the cached virtual table whose unfiltered rows these
	// are ("" otherwise): its columns may be looked up by hash index
	table string
}

// env is the row being evaluated, its columns, the rows of its group when
// the query aggregates, and the enclosing query's row.
type env struct {
	cols  []colDef
	row   []any
	group [][]any
	outer *env
	win   map[*funcExpr][]any // window function values of this SELECT, by row
	idx   int                 // this row's position in win
}

type evaluator struct {
	cat     *catData
	params  []*string
	regex   map[string]*regexp.Regexp
	tables  map[string]*relation        // virtual tables built so far (rows are never modified)
	indexes map[string]map[string][]int // hash indexes on them: table\x00column → value → rows
	work    int                         // rows built so far, against maxWork
}

// maxWork bounds the rows one query may build (joins, subqueries run per
// row), so a cross join of catalog tables fails instead of eating memory.
const maxWork = 300_000

func (ev *evaluator) spend(rows int) error {
	ev.work += rows
	if ev.work > maxWork {
		return errf("54000", "catalog query too expensive: more than %d intermediate rows", maxWork)
	}
	return nil
}

func errf(code, format string, args ...any) error { return sqlerr.New(code, format, args...) }

// lookup finds a column in env's chain.
func (en *env) lookup(qual, name string) (*env, int, error) {
	for e := en; e != nil; e = e.outer {
		found := -1
		for i, c := range e.cols {
			if c.name != name || qual != "" && c.qual != qual || qual == "" && c.hidden {
				continue
			}
			if found >= 0 {
				return nil, 0, errf(sqlerr.SyntaxError, "column reference %q is ambiguous", name)
			}
			found = i
		}
		if found >= 0 {
			return e, found, nil
		}
	}
	if qual != "" {
		return nil, 0, errf(sqlerr.UndefinedColumn, "column %s.%s does not exist", qual, name)
	}
	return nil, 0, errf(sqlerr.UndefinedColumn, "column %q does not exist", name)
}

// query evaluates q. With typeOnly it computes only the columns.
func (ev *evaluator) query(q *query, outer *env, typeOnly bool) (*relation, error) {
	if q.sel != nil {
		out, envs, err := ev.selectRows(q.sel, outer, typeOnly)
		if err != nil {
			return nil, err
		}
		if !typeOnly {
			if err := ev.sortRows(out, envs, q.order, q.sel); err != nil {
				return nil, err
			}
		}
		return ev.limit(out, q, outer)
	}
	l, err := ev.query(q.left, outer, typeOnly)
	if err != nil {
		return nil, err
	}
	r, err := ev.query(q.right, outer, typeOnly)
	if err != nil {
		return nil, err
	}
	if len(l.cols) != len(r.cols) {
		return nil, errf(sqlerr.SyntaxError, "each %s query must have the same number of columns", strings.ToUpper(q.op))
	}
	out := &relation{cols: l.cols}
	for i := range out.cols {
		if out.cols[i].t == types.OIDUnknown {
			out.cols[i].t = r.cols[i].t
		}
	}
	switch q.op {
	case "union all":
		out.rows = append(append(out.rows, l.rows...), r.rows...)
	case "union":
		out.rows = distinctRows(append(append(out.rows, l.rows...), r.rows...))
	case "intersect", "except":
		inR := map[string]bool{}
		for _, row := range r.rows {
			inR[rowKey(row)] = true
		}
		for _, row := range distinctRows(l.rows) {
			if inR[rowKey(row)] == (q.op == "intersect") {
				out.rows = append(out.rows, row)
			}
		}
	}
	if !typeOnly {
		if err := ev.sortRows(out, nil, q.order, nil); err != nil {
			return nil, err
		}
	}
	return ev.limit(out, q, outer)
}

func (ev *evaluator) limit(out *relation, q *query, outer *env) (*relation, error) {
	if q.offset != nil {
		n, err := ev.intArg(q.offset, outer)
		if err != nil {
			return nil, err
		}
		if n > int64(len(out.rows)) {
			n = int64(len(out.rows))
		}
		if n > 0 {
			out.rows = out.rows[n:]
		}
	}
	if q.limit != nil {
		n, err := ev.intArg(q.limit, outer)
		if err != nil {
			return nil, err
		}
		if n >= 0 && n < int64(len(out.rows)) {
			out.rows = out.rows[:n]
		}
	}
	return out, nil
}

func (ev *evaluator) intArg(e expr, outer *env) (int64, error) {
	v, err := ev.eval(e, &env{outer: outer})
	if err != nil {
		return 0, err
	}
	if v == nil {
		return -1, nil
	}
	n, ok := toInt(v)
	if !ok {
		return 0, errf(sqlerr.DatatypeMismatch, "LIMIT and OFFSET take integers")
	}
	return n, nil
}

func rowKey(row []any) string {
	var b strings.Builder
	for _, v := range row {
		if v == nil {
			b.WriteString("\x00N")
		} else {
			fmt.Fprintf(&b, "\x00%T:%v", v, v)
		}
	}
	return b.String()
}

func distinctRows(rows [][]any) [][]any {
	seen := map[string]bool{}
	var out [][]any
	for _, r := range rows {
		k := rowKey(r)
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// selectRows evaluates one SELECT; it returns the output and, per output
// row, the environment it came from (for ORDER BY on input columns).
func (ev *evaluator) selectRows(s *selectStmt, outer *env, typeOnly bool) (*relation, []*env, error) {
	in, err := ev.fromWhere(s, outer, typeOnly)
	if err != nil {
		return nil, nil, err
	}
	// expand the select list
	type outItem struct {
		e     expr
		name  string
		colIx int // >= 0: a star-expanded input column
	}
	var items []outItem
	for _, it := range s.items {
		if st, ok := it.e.(*starExpr); ok {
			n := 0
			for i, c := range in.cols {
				if c.hidden || c.system || st.qual != "" && c.qual != st.qual {
					continue
				}
				items = append(items, outItem{name: c.name, colIx: i})
				n++
			}
			if n == 0 && st.qual != "" {
				return nil, nil, errf(sqlerr.UndefinedTable, "missing FROM-clause entry for table %q", st.qual)
			}
			continue
		}
		name := it.alias
		if name == "" {
			name = colName(it.e)
		}
		items = append(items, outItem{e: it.e, name: name, colIx: -1})
	}
	typeEnv := &env{cols: in.cols, outer: outer}
	out := &relation{}
	for _, it := range items {
		var t uint32
		if it.colIx >= 0 {
			t = in.cols[it.colIx].t
		} else if t, err = ev.typeOf(it.e, typeEnv); err != nil {
			return nil, nil, err
		}
		out.cols = append(out.cols, colDef{name: it.name, t: t})
	}
	if typeOnly {
		return out, nil, nil
	}
	// one env per output row: per input row, or per group
	var envs []*env
	agg := len(s.groupBy) > 0 || s.having != nil
	for _, it := range s.items {
		agg = agg || hasAgg(it.e)
	}
	if agg {
		groups := map[string]int{}
		for _, row := range in.rows {
			en := &env{cols: in.cols, row: row, outer: outer}
			var key strings.Builder
			for _, g := range s.groupBy {
				if lit, ok := g.(*litExpr); ok {
					if n, ok := lit.v.(int64); ok && n >= 1 && int(n) <= len(items) && items[n-1].e != nil {
						g = items[n-1].e
					}
				}
				v, err := ev.eval(g, en)
				if err != nil {
					return nil, nil, err
				}
				key.WriteString(rowKey([]any{v}))
			}
			k := key.String()
			gi, ok := groups[k]
			if !ok {
				gi = len(envs)
				groups[k] = gi
				envs = append(envs, &env{cols: in.cols, row: row, outer: outer})
			}
			envs[gi].group = append(envs[gi].group, row)
		}
		if len(envs) == 0 && len(s.groupBy) == 0 {
			envs = append(envs, &env{cols: in.cols, row: make([]any, len(in.cols)), group: [][]any{}, outer: outer})
		}
		if s.having != nil {
			kept := envs[:0]
			for _, en := range envs {
				v, err := ev.eval(s.having, en)
				if err != nil {
					return nil, nil, err
				}
				if v == true {
					kept = append(kept, en)
				}
			}
			envs = kept
		}
	} else {
		for _, row := range in.rows {
			envs = append(envs, &env{cols: in.cols, row: row, outer: outer})
		}
	}
	if err := ev.windows(s, envs); err != nil {
		return nil, nil, err
	}
	for _, en := range envs {
		row := make([]any, len(items))
		for i, it := range items {
			if it.colIx >= 0 {
				row[i] = en.row[it.colIx]
				continue
			}
			v, err := ev.eval(it.e, en)
			if err != nil {
				return nil, nil, err
			}
			row[i] = v
		}
		out.rows = append(out.rows, row)
	}
	if s.distinct {
		seen := map[string]bool{}
		var rows [][]any
		var es []*env
		for i, r := range out.rows {
			k := rowKey(r)
			if !seen[k] {
				seen[k] = true
				rows = append(rows, r)
				es = append(es, envs[i])
			}
		}
		out.rows, envs = rows, es
	}
	return out, envs, nil
}

// windows computes the window functions of s's select list over envs
// (the rows after WHERE, or the groups) and stores them in each env.
func (ev *evaluator) windows(s *selectStmt, envs []*env) error {
	var fns []*funcExpr
	for _, it := range s.items {
		walkExpr(it.e, func(x expr) bool {
			if f, ok := x.(*funcExpr); ok && f.over != nil {
				fns = append(fns, f)
			}
			return true
		})
	}
	if len(fns) == 0 {
		return nil
	}
	win := map[*funcExpr][]any{}
	for i, en := range envs {
		en.win, en.idx = win, i
	}
	for _, f := range fns {
		vals := make([]any, len(envs))
		parts := map[string][]int{}
		var order []string
		for i, en := range envs {
			var key []any
			for _, p := range f.over.partition {
				v, err := ev.eval(p, en)
				if err != nil {
					return err
				}
				key = append(key, v)
			}
			k := rowKey(key)
			if _, ok := parts[k]; !ok {
				order = append(order, k)
			}
			parts[k] = append(parts[k], i)
		}
		for _, k := range order {
			idx := parts[k]
			keys := make([][]any, len(idx))
			for j, i := range idx {
				for _, o := range f.over.order {
					v, err := ev.eval(o.e, envs[i])
					if err != nil {
						return err
					}
					keys[j] = append(keys[j], v)
				}
			}
			perm := make([]int, len(idx))
			for j := range perm {
				perm[j] = j
			}
			cmpKeys := func(a, b int) int {
				for n, o := range f.over.order {
					x, y := keys[a][n], keys[b][n]
					if x == nil || y == nil {
						if (x == nil) == (y == nil) {
							continue
						}
						if (x == nil) != o.desc {
							return 1
						}
						return -1
					}
					c, _ := compare(x, y)
					if o.desc {
						c = -c
					}
					if c != 0 {
						return c
					}
				}
				return 0
			}
			sort.SliceStable(perm, func(a, b int) bool { return cmpKeys(perm[a], perm[b]) < 0 })
			rank, dense := int64(0), int64(0)
			for j, p := range perm {
				if j == 0 || cmpKeys(perm[j-1], p) != 0 {
					rank, dense = int64(j+1), dense+1
				}
				switch f.name {
				case "row_number":
					vals[idx[p]] = int64(j + 1)
				case "rank":
					vals[idx[p]] = rank
				case "dense_rank":
					vals[idx[p]] = dense
				}
			}
		}
		win[f] = vals
	}
	return nil
}

// fromWhere joins the FROM items and filters by WHERE. Conjuncts of WHERE
// are applied as soon as the tables they read are joined, so a comma join
// of three catalog tables never materialises the full product.
func (ev *evaluator) fromWhere(s *selectStmt, outer *env, typeOnly bool) (*relation, error) {
	cur := &relation{rows: [][]any{{}}}
	var conj []expr
	if s.where != nil {
		conj = splitAnd(s.where, nil)
	}
	local := map[string]bool{}
	for _, f := range s.from {
		fromNames(f, local)
	}
	// filter applies to rel the conjuncts that read only rel's columns
	// (and qualified columns of enclosing queries), and drops them
	filter := func(rel *relation, final bool) error {
		if typeOnly {
			return nil
		}
		var rest []expr
		for _, c := range conj {
			if !final && !ev.resolvable(c, rel.cols, outer, local) {
				rest = append(rest, c)
				continue
			}
			rows := rel.rows
			if cands, ok, err := ev.indexLookup(c, rel, outer); err != nil {
				return err
			} else if ok {
				rows = cands
			}
			rel.table = ""
			kept := rel.rows[:0:0]
			for _, row := range rows {
				v, err := ev.eval(c, &env{cols: rel.cols, row: row, outer: outer})
				if err != nil {
					return err
				}
				if v == true {
					kept = append(kept, row)
				}
			}
			rel.rows = kept
		}
		conj = rest
		return nil
	}
	for _, f := range s.from {
		r, err := ev.fromItem(f, outer, typeOnly)
		if err != nil {
			return nil, err
		}
		if typeOnly {
			cur = product(cur, r)
			continue
		}
		r = &relation{cols: r.cols, rows: r.rows} // filter replaces rows, never the shared table's
		if err := filter(r, false); err != nil {
			return nil, err
		}
		if li, ri, ok := equiConjunct(conj, cur.cols, r.cols); ok {
			// a WHERE equality between what is joined so far and the
			// new item: hash it instead of a full product
			if cur, err = ev.hashProduct(cur, r, li, ri); err != nil {
				return nil, err
			}
		} else {
			if len(cur.rows)*len(r.rows) > maxWork {
				return nil, ev.spend(maxWork + 1)
			}
			cur = product(cur, r)
			if err := ev.spend(len(cur.rows)); err != nil {
				return nil, err
			}
		}
		if err := filter(cur, false); err != nil {
			return nil, err
		}
	}
	if typeOnly {
		cur.rows = nil
		return cur, nil
	}
	if err := filter(cur, true); err != nil {
		return nil, err
	}
	return cur, nil
}

// indexLookup narrows a table's rows for a conjunct "column = value"
// where value does not depend on the table: it returns the rows whose
// column has that value (the conjunct still checks them), found through
// a hash index built once per table and column.
func (ev *evaluator) indexLookup(c expr, rel *relation, outer *env) ([][]any, bool, error) {
	b, isBin := c.(*binExpr)
	if rel.table == "" || !isBin || b.op != "=" {
		return nil, false, nil
	}
	for _, side := range [2][2]expr{{b.l, b.r}, {b.r, b.l}} {
		col, ok := side[0].(*colExpr)
		if !ok {
			continue
		}
		_, ci, err := (&env{cols: rel.cols}).lookup(col.qual, col.name)
		if err != nil || !ev.resolvable(side[1], nil, outer, nil) {
			continue
		}
		cls := classOf(rel.cols[ci].t)
		if cls != 'i' && cls != 's' {
			continue
		}
		v, err := ev.eval(side[1], &env{outer: outer})
		if err != nil {
			return nil, false, err
		}
		switch x := v.(type) {
		case nil:
			return nil, true, nil
		case string:
			if cls == 'i' {
				n, ok := toIntStrict(x)
				if !ok {
					continue
				}
				v = n
			}
		case int64:
			if cls != 'i' {
				continue
			}
		default:
			continue
		}
		key := rel.table + "\x00" + strconv.Itoa(ci)
		idx, ok := ev.indexes[key]
		if !ok {
			idx = map[string][]int{}
			for i, row := range rel.rows {
				if row[ci] != nil {
					k := joinKey(row[ci])
					idx[k] = append(idx[k], i)
				}
			}
			if ev.indexes == nil {
				ev.indexes = map[string]map[string][]int{}
			}
			ev.indexes[key] = idx
		}
		hits := idx[joinKey(v)]
		out := make([][]any, len(hits))
		for i, h := range hits {
			out[i] = rel.rows[h]
		}
		return out, true, nil
	}
	return nil, false, nil
}

// fromNames collects the names FROM item f can be qualified by.
func fromNames(f fromItem, into map[string]bool) {
	switch f := f.(type) {
	case *tableRef:
		into[pick(f.alias, f.name)] = true
	case *subRef:
		into[f.alias] = true
	case *funcRef:
		into[pick(f.alias, f.fn.name)] = true
	case *joinRef:
		fromNames(f.l, into)
		fromNames(f.r, into)
	}
}

func splitAnd(e expr, out []expr) []expr {
	if b, ok := e.(*binExpr); ok && b.op == "and" {
		return splitAnd(b.r, splitAnd(b.l, out))
	}
	return append(out, e)
}

// resolvable reports whether every column e reads is in cols or is a
// qualified column of an enclosing query (not named by this SELECT's FROM,
// local), and e has no subquery (those wait for the whole FROM).
func (ev *evaluator) resolvable(e expr, cols []colDef, outer *env, local map[string]bool) bool {
	ok := true
	walkExpr(e, func(x expr) bool {
		switch c := x.(type) {
		case *subExpr:
			ok = false
		case *inExpr:
			ok = c.sub == nil
		case *anyExpr:
			ok = c.sub == nil
		case *colExpr:
			if _, _, err := (&env{cols: cols}).lookup(c.qual, c.name); err == nil {
				break
			}
			if c.qual == "" || local[c.qual] || outer == nil {
				ok = false
			} else if _, _, err := outer.lookup(c.qual, c.name); err != nil {
				ok = false
			}
		case *funcExpr:
			if c.over != nil || aggregates[c.name] {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// equiConjunct finds among conj an equality of a column of l and one of r.
func equiConjunct(conj []expr, l, r []colDef) (int, int, bool) {
	for _, c := range conj {
		if li, ri, ok := equiJoinKey(c, l, r); ok {
			return li, ri, true
		}
	}
	return 0, 0, false
}

// hashProduct is the rows of a × b whose columns ai and bi are equal.
func (ev *evaluator) hashProduct(a, b *relation, ai, bi int) (*relation, error) {
	out := &relation{cols: append(append([]colDef(nil), a.cols...), b.cols...)}
	byKey := map[string][]int{}
	for i, r := range b.rows {
		if r[bi] != nil {
			k := joinKey(r[bi])
			byKey[k] = append(byKey[k], i)
		}
	}
	for _, l := range a.rows {
		if l[ai] == nil {
			continue
		}
		for _, i := range byKey[joinKey(l[ai])] {
			row := make([]any, 0, len(l)+len(b.rows[i]))
			out.rows = append(out.rows, append(append(row, l...), b.rows[i]...))
		}
		if err := ev.spend(len(byKey[joinKey(l[ai])]) + 1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func product(a, b *relation) *relation {
	out := &relation{cols: append(append([]colDef(nil), a.cols...), b.cols...)}
	for _, l := range a.rows {
		for _, r := range b.rows {
			row := make([]any, 0, len(l)+len(r))
			out.rows = append(out.rows, append(append(row, l...), r...))
		}
	}
	return out
}

func (ev *evaluator) fromItem(f fromItem, outer *env, typeOnly bool) (*relation, error) {
	switch f := f.(type) {
	case *tableRef:
		key := f.schema + "." + f.name
		r, ok := ev.tables[key]
		if !ok {
			var err error
			if r, err = ev.cat.table(f.schema, f.name); err != nil {
				return nil, err
			}
			if ev.tables == nil {
				ev.tables = map[string]*relation{}
			}
			ev.tables[key] = r
		}
		out := aliased(r, pick(f.alias, f.name), f.colAliases)
		out.table = key
		return out, nil
	case *subRef:
		r, err := ev.query(f.q, outer, typeOnly)
		if err != nil {
			return nil, err
		}
		return aliased(r, f.alias, f.colAliases), nil
	case *funcRef:
		r, err := ev.tableFunc(f.fn, outer, typeOnly)
		if err != nil {
			return nil, err
		}
		if len(r.cols) == 1 && f.alias != "" && len(f.colAliases) == 0 {
			r.cols[0].name = f.alias
		}
		return aliased(r, pick(f.alias, f.fn.name), f.colAliases), nil
	case *joinRef:
		l, err := ev.fromItem(f.l, outer, typeOnly)
		if err != nil {
			return nil, err
		}
		r, err := ev.fromItem(f.r, outer, typeOnly)
		if err != nil {
			return nil, err
		}
		return ev.join(f, l, r, outer, typeOnly)
	}
	return nil, fmt.Errorf("unknown FROM item %T", f)
}

func pick(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func aliased(r *relation, qual string, colAliases []string) *relation {
	out := &relation{cols: make([]colDef, len(r.cols)), rows: r.rows}
	for i, c := range r.cols {
		c.qual = qual
		if i < len(colAliases) {
			c.name = colAliases[i]
		}
		out.cols[i] = c
	}
	return out
}

func (ev *evaluator) join(j *joinRef, l, r *relation, outer *env, typeOnly bool) (*relation, error) {
	out := &relation{cols: append(append([]colDef(nil), l.cols...), r.cols...)}
	on := j.on
	if len(j.using) > 0 {
		for _, u := range j.using {
			li, ri := -1, -1
			for i, c := range l.cols {
				if c.name == u && !c.hidden {
					li = i
				}
			}
			for i, c := range r.cols {
				if c.name == u {
					ri = i
				}
			}
			if li < 0 || ri < 0 {
				return nil, errf(sqlerr.UndefinedColumn, "column %q specified in USING clause does not exist", u)
			}
			out.cols[len(l.cols)+ri].hidden = true
			eq := &binExpr{op: "=", l: &colRefIx{li}, r: &colRefIx{len(l.cols) + ri}}
			if on == nil {
				on = eq
			} else {
				on = &binExpr{op: "and", l: on, r: eq}
			}
		}
	}
	if typeOnly {
		return out, nil
	}
	rMatched := make([]bool, len(r.rows))
	// an equality between a left and a right column picks the candidate
	// right rows by hash; the whole ON condition still decides
	var candidates func([]any) []int
	all := make([]int, len(r.rows))
	for i := range all {
		all[i] = i
	}
	candidates = func([]any) []int { return all }
	if li, ri, ok := equiJoinKey(on, l.cols, r.cols); ok {
		byKey := map[string][]int{}
		for i, rr := range r.rows {
			if rr[ri] != nil {
				k := joinKey(rr[ri])
				byKey[k] = append(byKey[k], i)
			}
		}
		candidates = func(lr []any) []int {
			if lr[li] == nil {
				return nil
			}
			return byKey[joinKey(lr[li])]
		}
	}
	for _, lr := range l.rows {
		matched := false
		cands := candidates(lr)
		if err := ev.spend(len(cands)); err != nil {
			return nil, err
		}
		for _, ri := range cands {
			rr := r.rows[ri]
			row := make([]any, 0, len(lr)+len(rr))
			row = append(append(row, lr...), rr...)
			if on != nil {
				v, err := ev.eval(on, &env{cols: out.cols, row: row, outer: outer})
				if err != nil {
					return nil, err
				}
				if v != true {
					continue
				}
			}
			matched = true
			rMatched[ri] = true
			out.rows = append(out.rows, row)
			if err := ev.spend(1); err != nil {
				return nil, err
			}
		}
		if !matched && (j.kind == "left" || j.kind == "full") {
			row := append(append([]any(nil), lr...), make([]any, len(r.cols))...)
			out.rows = append(out.rows, row)
		}
	}
	if j.kind == "right" || j.kind == "full" {
		for ri, rr := range r.rows {
			if !rMatched[ri] {
				out.rows = append(out.rows, append(make([]any, len(l.cols)), rr...))
			}
		}
	}
	return out, nil
}

// equiJoinKey finds a conjunct "left column = right column" in on and
// returns the two positions.
func equiJoinKey(on expr, lcols, rcols []colDef) (int, int, bool) {
	if on == nil {
		return 0, 0, false
	}
	for _, c := range splitAnd(on, nil) {
		b, ok := c.(*binExpr)
		if !ok || b.op != "=" {
			continue
		}
		pos := func(e expr, cols []colDef) int {
			switch x := e.(type) {
			case *colExpr:
				if _, i, err := (&env{cols: cols}).lookup(x.qual, x.name); err == nil {
					return i
				}
			}
			return -1
		}
		if li, ri := pos(b.l, lcols), pos(b.r, rcols); li >= 0 && ri >= 0 && pos(b.l, rcols) < 0 && pos(b.r, lcols) < 0 {
			if sameClass(lcols[li].t, rcols[ri].t) {
				return li, ri, true
			}
		}
		if li, ri := pos(b.r, lcols), pos(b.l, rcols); li >= 0 && ri >= 0 && pos(b.r, rcols) < 0 && pos(b.l, lcols) < 0 {
			if sameClass(lcols[li].t, rcols[ri].t) {
				return li, ri, true
			}
		}
	}
	return 0, 0, false
}

// sameClass reports whether two column types compare by the same value
// kind, so equal values have equal hash keys.
func sameClass(a, b uint32) bool {
	ca, cb := classOf(a), classOf(b)
	return ca == cb && (ca == 'i' || ca == 's' || ca == 'b')
}

func joinKey(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case string:
		return "s" + x
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprintf("%T:%v", v, v)
}

// colRefIx reads a column by position (JOIN USING conditions).
type colRefIx struct{ i int }

// sortRows orders out by the ORDER BY items: output positions, output
// names, or expressions over the input row (envs).
func (ev *evaluator) sortRows(out *relation, envs []*env, order []orderItem, s *selectStmt) error {
	if len(order) == 0 {
		return nil
	}
	keys := make([][]any, len(out.rows))
	for i := range out.rows {
		keys[i] = make([]any, len(order))
	}
	for k, o := range order {
		col := -1
		switch e := o.e.(type) {
		case *litExpr:
			if n, ok := e.v.(int64); ok {
				if n < 1 || int(n) > len(out.cols) {
					return errf(sqlerr.SyntaxError, "ORDER BY position %d is not in select list", n)
				}
				col = int(n) - 1
			}
		case *colExpr:
			if e.qual == "" {
				for i, c := range out.cols {
					if c.name == e.name {
						col = i
						break
					}
				}
			}
		}
		for i, row := range out.rows {
			if col >= 0 {
				keys[i][k] = row[col]
				continue
			}
			if envs == nil {
				return errf(sqlerr.SyntaxError, "ORDER BY on a set operation must name output columns")
			}
			v, err := ev.eval(o.e, envs[i])
			if err != nil {
				return err
			}
			keys[i][k] = v
		}
	}
	idx := make([]int, len(out.rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		for k, o := range order {
			x, y := keys[idx[a]][k], keys[idx[b]][k]
			nullsFirst := o.desc
			if o.nullsFirst != nil {
				nullsFirst = *o.nullsFirst
			}
			if x == nil || y == nil {
				if x == nil && y == nil {
					continue
				}
				return (x == nil) == nullsFirst
			}
			c, _ := compare(x, y)
			if c == 0 {
				continue
			}
			if o.desc {
				return c > 0
			}
			return c < 0
		}
		return false
	})
	rows := make([][]any, len(idx))
	for i, j := range idx {
		rows[i] = out.rows[j]
	}
	out.rows = rows
	return nil
}

// colName is the column name Postgres gives an unaliased select item.
func colName(e expr) string {
	switch e := e.(type) {
	case *colExpr:
		return e.name
	case *funcExpr:
		return e.name
	case *castExpr:
		switch e.e.(type) {
		case *colExpr, *funcExpr, *castExpr, *subExpr:
			if n := colName(e.e); n != "?column?" {
				return n
			}
		}
		n := strings.TrimSuffix(typeInfos[e.t].name, "[]")
		switch e.t {
		case types.OIDInt8:
			n = "int8"
		case types.OIDInt4:
			n = "int4"
		case types.OIDInt2:
			n = "int2"
		case types.OIDBool:
			n = "bool"
		case types.OIDFloat8:
			n = "float8"
		case types.OIDVarchar:
			n = "varchar"
		case types.OIDTimestamp:
			n = "timestamp"
		case types.OIDTimestampTZ:
			n = "timestamptz"
		}
		return n
	case *caseExpr:
		return "case"
	case *subExpr:
		switch e.kind {
		case 'x':
			return "exists"
		case 'a':
			return "array"
		}
		if e.q.sel != nil && len(e.q.sel.items) > 0 {
			it := e.q.sel.items[0]
			if it.alias != "" {
				return it.alias
			}
			return colName(it.e)
		}
	case *arrayExpr:
		return "array"
	}
	return "?column?"
}

// walkExpr visits e and its sub-expressions (not subqueries' insides)
// while fn returns true.
func walkExpr(e expr, fn func(expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	switch e := e.(type) {
	case *funcExpr:
		for _, a := range e.args {
			walkExpr(a, fn)
		}
		for _, o := range e.order {
			walkExpr(o.e, fn)
		}
		walkExpr(e.filter, fn)
	case *binExpr:
		walkExpr(e.l, fn)
		walkExpr(e.r, fn)
	case *notExpr:
		walkExpr(e.e, fn)
	case *negExpr:
		walkExpr(e.e, fn)
	case *isExpr:
		walkExpr(e.e, fn)
	case *castExpr:
		walkExpr(e.e, fn)
	case *caseExpr:
		walkExpr(e.operand, fn)
		for _, w := range e.whens {
			walkExpr(w.cond, fn)
			walkExpr(w.then, fn)
		}
		walkExpr(e.els, fn)
	case *inExpr:
		walkExpr(e.e, fn)
		for _, x := range e.list {
			walkExpr(x, fn)
		}
	case *anyExpr:
		walkExpr(e.l, fn)
		walkExpr(e.r, fn)
	case *arrayExpr:
		for _, x := range e.elems {
			walkExpr(x, fn)
		}
	case *indexExpr:
		walkExpr(e.e, fn)
		walkExpr(e.idx, fn)
	case *betweenExpr:
		walkExpr(e.e, fn)
		walkExpr(e.lo, fn)
		walkExpr(e.hi, fn)
	case *likeExpr:
		walkExpr(e.e, fn)
		walkExpr(e.pat, fn)
	}
}

func hasAgg(e expr) bool {
	found := false
	walkExpr(e, func(x expr) bool {
		if f, ok := x.(*funcExpr); ok && aggregates[f.name] {
			found = true
		}
		return !found
	})
	return found
}

var aggregates = map[string]bool{
	"count": true, "sum": true, "min": true, "max": true, "avg": true, "string_agg": true, "array_agg": true,
	"bool_and": true, "bool_or": true, "every": true,
}

// regexpFor compiles a Postgres regular expression (the subset Go's RE2
// shares with it), caching per evaluation.
func (ev *evaluator) regexpFor(pat string, ci bool) (*regexp.Regexp, error) {
	key := pat
	if ci {
		key = "(?i)" + pat
	}
	if re, ok := ev.regex[key]; ok {
		return re, nil
	}
	re, err := regexp.Compile(key)
	if err != nil {
		return nil, errf(sqlerr.DataException, "invalid regular expression %q: %v", pat, err)
	}
	if ev.regex == nil {
		ev.regex = map[string]*regexp.Regexp{}
	}
	ev.regex[key] = re
	return re, nil
}

func likeToRegexp(p string) string {
	var b strings.Builder
	b.WriteString("^(?s:")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteString(regexp.QuoteMeta(string(p[i])))
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(")$")
	return b.String()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
