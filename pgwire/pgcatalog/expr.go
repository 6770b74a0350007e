package pgcatalog

import (
	"math"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// eval computes e in en.
func (ev *evaluator) eval(e expr, en *env) (any, error) {
	switch e := e.(type) {
	case *litExpr:
		return e.v, nil
	case *paramExpr:
		if e.n < 1 || e.n > len(ev.params) {
			if ev.params == nil {
				return nil, nil // Describe before Bind
			}
			return nil, errf(sqlerr.SyntaxError, "there is no parameter $%d", e.n)
		}
		if p := ev.params[e.n-1]; p != nil {
			return *p, nil
		}
		return nil, nil
	case *colExpr:
		x, i, err := en.lookup(e.qual, e.name)
		if err != nil {
			return nil, err
		}
		if x.row == nil {
			return nil, nil
		}
		return x.row[i], nil
	case *colRefIx:
		return en.row[e.i], nil
	case *starExpr:
		return nil, errf(sqlerr.SyntaxError, "* is not allowed here")
	case *funcExpr:
		if e.over != nil {
			if vals, ok := en.win[e]; ok && en.idx < len(vals) {
				return vals[en.idx], nil
			}
			return nil, errf(sqlerr.FeatureNotSupport, "window function %s is allowed only in the select list", e.name)
		}
		if aggregates[e.name] {
			return ev.aggregate(e, en)
		}
		args := make([]any, len(e.args))
		ts := make([]uint32, len(e.args))
		for i, a := range e.args {
			v, err := ev.eval(a, en)
			if err != nil {
				return nil, err
			}
			args[i] = v
			if ts[i], err = ev.typeOf(a, en); err != nil {
				return nil, err
			}
		}
		return ev.call(e.name, args, ts)
	case *binExpr:
		return ev.binary(e, en)
	case *notExpr:
		v, err := ev.eval(e.e, en)
		if err != nil || v == nil {
			return nil, err
		}
		b, ok := toBool(v)
		if !ok {
			return nil, errf(sqlerr.DatatypeMismatch, "argument of NOT must be type boolean")
		}
		return !b, nil
	case *negExpr:
		v, err := ev.eval(e.e, en)
		if err != nil || v == nil {
			return nil, err
		}
		switch n := v.(type) {
		case int64:
			return -n, nil
		case float64:
			return -n, nil
		}
		return nil, errf(sqlerr.DatatypeMismatch, "cannot negate %v", v)
	case *isExpr:
		v, err := ev.eval(e.e, en)
		if err != nil {
			return nil, err
		}
		var r bool
		switch e.what {
		case "null":
			r = v == nil
		case "true":
			r = v == true
		case "false":
			r = v == false
		}
		return r != e.not, nil
	case *castExpr:
		v, err := ev.eval(e.e, en)
		if err != nil {
			return nil, err
		}
		from, err := ev.typeOf(e.e, en)
		if err != nil {
			return nil, err
		}
		return ev.cast(v, from, e.t)
	case *caseExpr:
		var operand any
		if e.operand != nil {
			v, err := ev.eval(e.operand, en)
			if err != nil {
				return nil, err
			}
			operand = v
		}
		for _, w := range e.whens {
			c, err := ev.eval(w.cond, en)
			if err != nil {
				return nil, err
			}
			hit := c == true
			if e.operand != nil {
				cmp, ok := compare(operand, c)
				hit = ok && cmp == 0
			}
			if hit {
				return ev.eval(w.then, en)
			}
		}
		if e.els != nil {
			return ev.eval(e.els, en)
		}
		return nil, nil
	case *inExpr:
		v, err := ev.eval(e.e, en)
		if err != nil {
			return nil, err
		}
		list := e.list
		var vals []any
		if e.sub != nil {
			r, err := ev.query(e.sub, en, false)
			if err != nil {
				return nil, err
			}
			for _, row := range r.rows {
				vals = append(vals, row[0])
			}
		} else {
			for _, x := range list {
				xv, err := ev.eval(x, en)
				if err != nil {
					return nil, err
				}
				vals = append(vals, xv)
			}
		}
		if v == nil {
			return nil, nil
		}
		sawNull := false
		for _, x := range vals {
			if x == nil {
				sawNull = true
				continue
			}
			if c, ok := compare(v, x); ok && c == 0 {
				return !e.not, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return e.not, nil
	case *anyExpr:
		l, err := ev.eval(e.l, en)
		if err != nil {
			return nil, err
		}
		var elems []any
		if e.sub != nil {
			r, err := ev.query(e.sub, en, false)
			if err != nil {
				return nil, err
			}
			for _, row := range r.rows {
				elems = append(elems, row[0])
			}
		} else {
			a, err := ev.eval(e.r, en)
			if err != nil {
				return nil, err
			}
			if a == nil {
				return nil, nil
			}
			if s, ok := a.(string); ok {
				a = parseArray(s)
			}
			arr, ok := a.([]any)
			if !ok {
				return nil, errf(sqlerr.DatatypeMismatch, "op ANY/ALL (array) requires array on right side")
			}
			elems = arr
		}
		if l == nil {
			return nil, nil
		}
		sawNull := false
		for _, x := range elems {
			r, err := cmpOp(e.op, l, x)
			if err != nil {
				return nil, err
			}
			if r == nil {
				sawNull = true
				continue
			}
			if r == !e.all {
				return !e.all, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return e.all, nil
	case *subExpr:
		r, err := ev.query(e.q, en, false)
		if err != nil {
			return nil, err
		}
		switch e.kind {
		case 'x':
			return len(r.rows) > 0, nil
		case 'a':
			out := make([]any, 0, len(r.rows))
			for _, row := range r.rows {
				out = append(out, row[0])
			}
			return out, nil
		}
		if len(r.cols) != 1 {
			return nil, errf(sqlerr.SyntaxError, "subquery must return only one column")
		}
		switch len(r.rows) {
		case 0:
			return nil, nil
		case 1:
			return r.rows[0][0], nil
		}
		return nil, errf("21000", "more than one row returned by a subquery used as an expression")
	case *arrayExpr:
		out := make([]any, len(e.elems))
		for i, x := range e.elems {
			v, err := ev.eval(x, en)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *indexExpr:
		a, err := ev.eval(e.e, en)
		if err != nil || a == nil {
			return nil, err
		}
		iv, err := ev.eval(e.idx, en)
		if err != nil || iv == nil {
			return nil, err
		}
		i, ok := toInt(iv)
		if !ok {
			return nil, errf(sqlerr.DatatypeMismatch, "array subscript must have type integer")
		}
		t, err := ev.typeOf(e.e, en)
		if err != nil {
			return nil, err
		}
		if classOf(t) != 'v' { // int2vector and oidvector count from 0
			i--
		}
		arr, _ := a.([]any)
		if i < 0 || i >= int64(len(arr)) {
			return nil, nil
		}
		return arr[i], nil
	case *betweenExpr:
		v, err := ev.eval(e.e, en)
		if err != nil {
			return nil, err
		}
		lo, err := ev.eval(e.lo, en)
		if err != nil {
			return nil, err
		}
		hi, err := ev.eval(e.hi, en)
		if err != nil {
			return nil, err
		}
		if v == nil || lo == nil || hi == nil {
			return nil, nil
		}
		a, _ := compare(v, lo)
		b, _ := compare(v, hi)
		return (a >= 0 && b <= 0) != e.not, nil
	case *likeExpr:
		v, err := ev.eval(e.e, en)
		if err != nil {
			return nil, err
		}
		p, err := ev.eval(e.pat, en)
		if err != nil || v == nil || p == nil {
			return nil, err
		}
		re, err := ev.regexpFor(likeToRegexp(toText(p)), e.ci)
		if err != nil {
			return nil, err
		}
		return re.MatchString(toText(v)) != e.not, nil
	}
	return nil, errf(sqlerr.FeatureNotSupport, "expression %T is not supported", e)
}

func (ev *evaluator) binary(e *binExpr, en *env) (any, error) {
	if e.op == "and" || e.op == "or" {
		l, err := ev.eval(e.l, en)
		if err != nil {
			return nil, err
		}
		if e.op == "and" && l == false || e.op == "or" && l == true {
			return l, nil
		}
		r, err := ev.eval(e.r, en)
		if err != nil {
			return nil, err
		}
		if e.op == "and" && r == false || e.op == "or" && r == true {
			return r, nil
		}
		if l == nil || r == nil {
			return nil, nil
		}
		return r, nil
	}
	l, err := ev.eval(e.l, en)
	if err != nil {
		return nil, err
	}
	r, err := ev.eval(e.r, en)
	if err != nil {
		return nil, err
	}
	switch e.op {
	case "is distinct from", "is not distinct from":
		same := l == nil && r == nil
		if l != nil && r != nil {
			c, ok := compare(l, r)
			same = ok && c == 0
		}
		return same == (e.op == "is not distinct from"), nil
	}
	if e.op == "||" && (l == nil) != (r == nil) {
		// array || NULL is the array (array_cat), text || NULL is NULL
		lt, _ := ev.typeOf(e.l, en)
		rt, _ := ev.typeOf(e.r, en)
		if classOf(lt) == 'a' || classOf(rt) == 'a' {
			if l == nil {
				return r, nil
			}
			return l, nil
		}
	}
	if l == nil || r == nil {
		return nil, nil
	}
	switch e.op {
	case "=", "<>", "<", ">", "<=", ">=":
		return cmpOp(e.op, l, r)
	case "~", "!~", "~*", "!~*":
		re, err := ev.regexpFor(toText(r), strings.Contains(e.op, "*"))
		if err != nil {
			return nil, err
		}
		return re.MatchString(toText(l)) != strings.HasPrefix(e.op, "!"), nil
	case "~~", "!~~", "~~*", "!~~*":
		re, err := ev.regexpFor(likeToRegexp(toText(r)), strings.Contains(e.op, "*"))
		if err != nil {
			return nil, err
		}
		return re.MatchString(toText(l)) != strings.HasPrefix(e.op, "!"), nil
	case "||":
		la, lok := l.([]any)
		ra, rok := r.([]any)
		switch {
		case lok && rok:
			return append(append([]any(nil), la...), ra...), nil
		case lok:
			return append(append([]any(nil), la...), r), nil
		case rok:
			return append([]any{l}, ra...), nil
		}
		lt, _ := ev.typeOf(e.l, en)
		rt, _ := ev.typeOf(e.r, en)
		return ev.textOf(l, lt) + ev.textOf(r, rt), nil
	case "+", "-", "*", "/", "%":
		return arith(e.op, l, r)
	}
	return nil, errf(sqlerr.UndefinedFunction, "operator does not exist: %s", e.op)
}

func arith(op string, l, r any) (any, error) {
	li, lok := toIntStrict(l)
	ri, rok := toIntStrict(r)
	if lok && rok {
		switch op {
		case "+":
			return li + ri, nil
		case "-":
			return li - ri, nil
		case "*":
			return li * ri, nil
		case "/", "%":
			if ri == 0 {
				return nil, errf(sqlerr.DivisionByZero, "division by zero")
			}
			if op == "/" {
				return li / ri, nil
			}
			return li % ri, nil
		}
	}
	lf, lok := toFloat(l)
	rf, rok := toFloat(r)
	if !lok || !rok {
		return nil, errf(sqlerr.DatatypeMismatch, "operator %s needs numbers", op)
	}
	switch op {
	case "+":
		return lf + rf, nil
	case "-":
		return lf - rf, nil
	case "*":
		return lf * rf, nil
	case "/":
		if rf == 0 {
			return nil, errf(sqlerr.DivisionByZero, "division by zero")
		}
		return lf / rf, nil
	}
	return math.Mod(lf, rf), nil
}

func cmpOp(op string, l, r any) (any, error) {
	if l == nil || r == nil {
		return nil, nil
	}
	c, ok := compare(l, r)
	if !ok {
		return nil, errf(sqlerr.DatatypeMismatch, "cannot compare %v and %v", l, r)
	}
	switch op {
	case "=":
		return c == 0, nil
	case "<>":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case ">":
		return c > 0, nil
	case "<=":
		return c <= 0, nil
	case ">=":
		return c >= 0, nil
	}
	return nil, errf(sqlerr.UndefinedFunction, "operator does not exist: %s", op)
}

// compare orders two non-NULL values, coercing a string to the other
// side's kind as Postgres coerces an unknown literal.
func compare(a, b any) (int, bool) {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmp3(x < y, x > y), true
		case float64:
			return cmp3(float64(x) < y, float64(x) > y), true
		case string:
			if n, err := strconv.ParseInt(strings.TrimSpace(y), 10, 64); err == nil {
				return cmp3(x < n, x > n), true
			}
			if f, err := strconv.ParseFloat(strings.TrimSpace(y), 64); err == nil {
				return cmp3(float64(x) < f, float64(x) > f), true
			}
			return 0, false
		case bool:
			return 0, false
		}
	case float64:
		if y, ok := toFloat(b); ok {
			return cmp3(x < y, x > y), true
		}
		return 0, false
	case bool:
		y, ok := toBool(b)
		if !ok {
			return 0, false
		}
		return cmp3(!x && y, x && !y), true
	case string:
		switch y := b.(type) {
		case string:
			return strings.Compare(x, y), true
		case []any:
			c, ok := compare(parseArray(x), y)
			return c, ok
		default:
			c, ok := compare(b, a)
			return -c, ok
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			s, isStr := b.(string)
			if !isStr {
				return 0, false
			}
			y = parseArray(s)
		}
		for i := 0; i < len(x) && i < len(y); i++ {
			if x[i] == nil || y[i] == nil {
				if x[i] == nil && y[i] == nil {
					continue
				}
				return cmp3(y[i] == nil, x[i] == nil), true // NULL sorts last
			}
			if c, ok := compare(x[i], y[i]); !ok || c != 0 {
				return c, ok
			}
		}
		return cmp3(len(x) < len(y), len(x) > len(y)), true
	}
	return 0, false
}

func cmp3(less, more bool) int {
	if less {
		return -1
	}
	if more {
		return 1
	}
	return 0
}

func toBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		return types.ParseBool(x)
	case int64:
		return x != 0, true
	}
	return false, false
}

// toIntStrict accepts integers and integer strings, not floats.
func toIntStrict(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n, err == nil
	}
	return 0, false
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(math.Round(x)), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n, true
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return int64(math.Round(f)), true
		}
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

// toText is a value's text without type knowledge.
func toText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return types.FormatFloat(x)
	case []any:
		return formatArray(x, 0)
	}
	return ""
}

// textOf is the Postgres text form of v of static type t (bool as "t",
// regclass as the relation's name, ...).
func (ev *evaluator) textOf(v any, t uint32) string {
	switch t {
	case OIDRegclass:
		if n, ok := v.(int64); ok {
			return ev.cat.relName(n)
		}
	case OIDRegtype:
		if n, ok := v.(int64); ok {
			return formatType(uint32(n), -1)
		}
	case OIDRegnamesp:
		if n, ok := v.(int64); ok {
			return ev.cat.nspName(n)
		}
	}
	switch x := v.(type) {
	case bool:
		if x {
			return "t"
		}
		return "f"
	case []any:
		if classOf(t) == 'v' {
			parts := make([]string, len(x))
			for i, e := range x {
				parts[i] = toText(e)
			}
			return strings.Join(parts, " ")
		}
		return formatArray(x, typeInfos[t].elem)
	}
	return toText(v)
}

func formatArray(a []any, elem uint32) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		if e == nil {
			b.WriteString("NULL")
			continue
		}
		s := toText(e)
		if bv, ok := e.(bool); ok {
			s = map[bool]string{true: "t", false: "f"}[bv]
		}
		if s == "" || strings.ContainsAny(s, "{},\"\\ \t\n") || strings.EqualFold(s, "null") {
			s = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
		}
		b.WriteString(s)
	}
	b.WriteByte('}')
	return b.String()
}

// parseArray reads an array literal ({a,"b c",NULL}) into strings.
func parseArray(s string) []any {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		// int2vector / oidvector: space-separated
		var out []any
		for _, f := range strings.Fields(s) {
			out = append(out, f)
		}
		return out
	}
	s = s[1 : len(s)-1]
	var out []any
	if strings.TrimSpace(s) == "" {
		return []any{}
	}
	var cur strings.Builder
	quoted, inQ := false, false
	flush := func() {
		v := cur.String()
		if !quoted && strings.EqualFold(strings.TrimSpace(v), "null") {
			out = append(out, nil)
		} else if quoted {
			out = append(out, v)
		} else {
			out = append(out, strings.TrimSpace(v))
		}
		cur.Reset()
		quoted = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQ && c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case c == '"':
			inQ = !inQ
			quoted = true
		case !inQ && c == ',':
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out
}

// cast converts v from type from to type to.
func (ev *evaluator) cast(v any, from, to uint32) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch to {
	case OIDRegproc:
		switch x := v.(type) {
		case string:
			return strings.TrimPrefix(x, "pg_catalog."), nil
		case int64:
			if x == 0 {
				return "-", nil
			}
			return strconv.FormatInt(x, 10), nil
		}
	case OIDRegclass:
		if s, ok := v.(string); ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n, nil
			}
			oid, ok := ev.cat.relByName(s)
			if !ok {
				return nil, errf(sqlerr.UndefinedTable, "relation %q does not exist", s)
			}
			return oid, nil
		}
	case OIDRegtype:
		if s, ok := v.(string); ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n, nil
			}
			t, ok := lookupType(s)
			if !ok {
				return nil, errf(codeUndefinedObject, "type %q does not exist", s)
			}
			return int64(t), nil
		}
	case OIDRegnamesp:
		if s, ok := v.(string); ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n, nil
			}
			n, ok := ev.cat.nspByName(s)
			if !ok {
				return nil, errf(codeUndefinedObject, "schema %q does not exist", s)
			}
			return n, nil
		}
	}
	switch classOf(to) {
	case 'i':
		n, ok := toInt(v)
		if !ok {
			return nil, errf(codeInvalidText, "invalid input syntax for type %s: %q", typeInfos[to].name, toText(v))
		}
		return n, nil
	case 'f':
		f, ok := toFloat(v)
		if !ok {
			return nil, errf(codeInvalidText, "invalid input syntax for type %s: %q", typeInfos[to].name, toText(v))
		}
		return f, nil
	case 'b':
		b, ok := toBool(v)
		if !ok {
			return nil, errf(codeInvalidText, "invalid input syntax for type boolean: %q", toText(v))
		}
		return b, nil
	case 'a', 'v':
		var arr []any
		switch x := v.(type) {
		case []any:
			arr = x
		case string:
			arr = parseArray(x)
		default:
			return nil, errf(sqlerr.DatatypeMismatch, "cannot cast %v to %s", v, typeInfos[to].name)
		}
		elem := typeInfos[to].elem
		out := make([]any, len(arr))
		for i, x := range arr {
			c, err := ev.cast(x, typeInfos[from].elem, elem)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	// to a string type
	s := ev.textOf(v, from)
	if b, ok := v.(bool); ok {
		s = map[bool]string{true: "true", false: "false"}[b]
	}
	if to == types.OIDChar && len(s) > 1 {
		s = s[:1]
	}
	return s, nil
}
