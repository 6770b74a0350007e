package pgcatalog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// fnDef is one scalar function: its result type (0: the type of its first
// typed argument) and its body. Strict functions return NULL when an
// argument is NULL without running.
type fnDef struct {
	ret    uint32
	min    int
	max    int // -1: variadic
	strict bool
	call   func(ev *evaluator, a []any, ts []uint32) (any, error)
}

func constFn(ret uint32, v func(ev *evaluator) any) fnDef {
	return fnDef{ret: ret, max: -1, call: func(ev *evaluator, _ []any, _ []uint32) (any, error) { return v(ev), nil }}
}

func nullFn(ret uint32) fnDef {
	return fnDef{ret: ret, max: -1, call: func(*evaluator, []any, []uint32) (any, error) { return nil, nil }}
}

var functions map[string]fnDef

func init() {
	user := func(ev *evaluator) any { return ev.cat.s.User }
	yes := constFn(types.OIDBool, func(*evaluator) any { return true })
	zero := fnDef{ret: types.OIDInt8, min: 1, max: 1, call: func(*evaluator, []any, []uint32) (any, error) { return int64(0), nil }}
	now := constFn(types.OIDTimestampTZ, func(*evaluator) any { return time.Now().UTC().Format("2006-01-02 15:04:05.999999+00") })
	functions = map[string]fnDef{
		"version":          constFn(types.OIDText, func(*evaluator) any { return VersionString }),
		"current_database": constFn(types.OIDName, func(ev *evaluator) any { return ev.cat.s.Database }),
		"current_catalog":  constFn(types.OIDName, func(ev *evaluator) any { return ev.cat.s.Database }),
		"current_schema":   constFn(types.OIDName, func(ev *evaluator) any { return ev.cat.schema() }),
		"current_schemas": {ret: types.OIDNameArray, min: 1, max: 1, call: func(ev *evaluator, a []any, _ []uint32) (any, error) {
			if a[0] == true {
				return []any{"pg_catalog", ev.cat.schema()}, nil
			}
			return []any{ev.cat.schema()}, nil
		}},
		"current_user":   constFn(types.OIDName, user),
		"session_user":   constFn(types.OIDName, user),
		"user":           constFn(types.OIDName, user),
		"current_role":   constFn(types.OIDName, user),
		"pg_backend_pid": constFn(types.OIDInt4, func(ev *evaluator) any { return int64(ev.cat.s.BackendPID) }),
		"current_setting": {ret: types.OIDText, min: 1, max: 2, strict: true, call: func(ev *evaluator, a []any, _ []uint32) (any, error) {
			v, ok := ev.cat.setting(toText(a[0]))
			if !ok {
				if len(a) > 1 && a[1] == true {
					return nil, nil
				}
				return nil, errf(codeUndefinedObject, "unrecognized configuration parameter %q", toText(a[0]))
			}
			return v, nil
		}},
		"pg_get_userbyid": {ret: types.OIDName, min: 1, max: 1, strict: true, call: func(ev *evaluator, a []any, _ []uint32) (any, error) {
			if n, _ := toInt(a[0]); n == 10 {
				return ev.cat.s.User, nil
			}
			return fmt.Sprintf("unknown (OID=%s)", toText(a[0])), nil
		}},
		// A system table is not on the search path (public), as
		// Postgres hides tables of other schemas from \dt.
		"pg_table_is_visible": {ret: types.OIDBool, min: 1, max: 1, strict: true, call: func(ev *evaluator, a []any, _ []uint32) (any, error) {
			n, _ := toInt(a[0])
			oi := ev.cat.byOID[n]
			return oi == nil || oi.nsp != nspSystem, nil
		}},
		"pg_collation_is_visible":      yes,
		"pg_conversion_is_visible":     yes,
		"pg_operator_is_visible":       yes,
		"pg_opclass_is_visible":        yes,
		"pg_opfamily_is_visible":       yes,
		"pg_statistics_obj_is_visible": yes,
		"pg_ts_config_is_visible":      yes,
		"pg_ts_dict_is_visible":        yes,
		"pg_ts_parser_is_visible":      yes,
		"pg_ts_template_is_visible":    yes,
		"format": {ret: types.OIDText, min: 1, max: -1, call: func(ev *evaluator, a []any, ts []uint32) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			return formatFn(ev, toText(a[0]), a[1:], ts[1:])
		}},
		"pg_type_is_visible":     yes,
		"pg_function_is_visible": yes,
		"format_type": {ret: types.OIDText, min: 1, max: 2, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			t, _ := toInt(a[0])
			mod := int64(-1)
			if len(a) > 1 && a[1] != nil {
				mod, _ = toInt(a[1])
			}
			return formatType(uint32(t), mod), nil
		}},
		"pg_get_expr":                        nullFn(types.OIDText),
		"pg_get_ruledef":                     nullFn(types.OIDText),
		"pg_get_statisticsobjdef_columns":    nullFn(types.OIDText),
		"pg_get_triggerdef":                  nullFn(types.OIDText),
		"pg_get_functiondef":                 nullFn(types.OIDText),
		"pg_get_function_arguments":          procDescribe(false),
		"pg_get_function_result":             procDescribe(true),
		"pg_get_function_identity_arguments": nullFn(types.OIDText),
		"pg_get_partkeydef":                  nullFn(types.OIDText),
		"pg_get_serial_sequence":             nullFn(types.OIDText),
		"obj_description":                    nullFn(types.OIDText),
		"col_description":                    nullFn(types.OIDText),
		"shobj_description":                  nullFn(types.OIDText),
		"inet_server_addr":                   nullFn(OIDInet),
		"inet_client_addr":                   nullFn(OIDInet),
		"inet_server_port":                   nullFn(types.OIDInt4),
		"pg_tablespace_location":             constFn(types.OIDText, func(*evaluator) any { return "" }),
		"pg_relation_is_publishable":         constFn(types.OIDBool, func(*evaluator) any { return false }),
		"pg_is_in_recovery":                  constFn(types.OIDBool, func(*evaluator) any { return false }),
		"pg_get_indexdef": {ret: types.OIDText, min: 1, max: 3, strict: true, call: func(ev *evaluator, a []any, _ []uint32) (any, error) {
			n, _ := toInt(a[0])
			col := int64(0)
			if len(a) > 1 {
				col, _ = toInt(a[1])
			}
			return ev.cat.indexDef(n, col), nil
		}},
		"pg_get_constraintdef": {ret: types.OIDText, min: 1, max: 2, strict: true, call: func(ev *evaluator, a []any, _ []uint32) (any, error) {
			n, _ := toInt(a[0])
			return ev.cat.constraintDef(n), nil
		}},
		"pg_get_viewdef": {ret: types.OIDText, min: 1, max: 2, strict: true, call: func(ev *evaluator, a []any, ts []uint32) (any, error) {
			n, ok := toIntStrict(a[0])
			if !ok {
				if n, ok = ev.cat.relByName(toText(a[0])); !ok {
					return nil, errf(sqlerr.UndefinedTable, "relation %q does not exist", toText(a[0]))
				}
			}
			return ev.cat.viewDef(n), nil
		}},
		"pg_encoding_to_char": {ret: types.OIDName, min: 1, max: 1, strict: true, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			if n, _ := toInt(a[0]); n == 0 {
				return "SQL_ASCII", nil
			}
			return "UTF8", nil
		}},
		"pg_char_to_encoding": {ret: types.OIDInt4, min: 1, max: 1, strict: true, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			if strings.EqualFold(toText(a[0]), "SQL_ASCII") {
				return int64(0), nil
			}
			return int64(6), nil
		}},
		"array_to_string": {ret: types.OIDText, min: 2, max: 3, call: func(ev *evaluator, a []any, ts []uint32) (any, error) {
			if a[0] == nil || a[1] == nil {
				return nil, nil
			}
			arr, err := asArray(a[0])
			if err != nil {
				return nil, err
			}
			var parts []string
			for _, e := range arr {
				if e == nil {
					if len(a) > 2 && a[2] != nil {
						parts = append(parts, toText(a[2]))
					}
					continue
				}
				parts = append(parts, ev.textOf(e, typeInfos[ts[0]].elem))
			}
			return strings.Join(parts, toText(a[1])), nil
		}},
		"array_remove": {ret: 0, min: 2, max: 2, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			arr, err := asArray(a[0])
			if err != nil {
				return nil, err
			}
			out := []any{}
			for _, e := range arr {
				if a[1] == nil && e == nil {
					continue
				}
				if e != nil && a[1] != nil {
					if c, ok := compare(e, a[1]); ok && c == 0 {
						continue
					}
				}
				out = append(out, e)
			}
			return out, nil
		}},
		"getdatabaseencoding": constFn(types.OIDName, func(*evaluator) any { return "UTF8" }),
		"array_upper":         {ret: types.OIDInt4, min: 2, max: 2, strict: true, call: arrayLen},
		"array_length":        {ret: types.OIDInt4, min: 2, max: 2, strict: true, call: arrayLen},
		"cardinality":         {ret: types.OIDInt4, min: 1, max: 1, strict: true, call: arrayLen},
		"array_lower": {ret: types.OIDInt4, min: 2, max: 2, strict: true, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			arr, err := asArray(a[0])
			if err != nil || len(arr) == 0 {
				return nil, err
			}
			return int64(1), nil
		}},
		"pg_size_pretty": {ret: types.OIDText, min: 1, max: 1, strict: true, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			n, _ := toInt(a[0])
			return sizePretty(n), nil
		}},
		"pg_table_size":          zero,
		"pg_stat_get_numscans":   zero,
		"pg_relation_size":       fnDef{ret: types.OIDInt8, min: 1, max: 2, call: zero.call},
		"pg_total_relation_size": zero,
		"pg_indexes_size":        zero,
		"pg_database_size":       zero,
		"quote_ident": {ret: types.OIDText, min: 1, max: 1, strict: true, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			return quoteIdent(toText(a[0])), nil
		}},
		"quote_literal": {ret: types.OIDText, min: 1, max: 1, strict: true, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			return quoteLiteral(toText(a[0])), nil
		}},
		"quote_nullable": {ret: types.OIDText, min: 1, max: 1, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			if a[0] == nil {
				return "NULL", nil
			}
			return quoteLiteral(toText(a[0])), nil
		}},
		"concat": {ret: types.OIDText, max: -1, call: func(ev *evaluator, a []any, ts []uint32) (any, error) {
			var b strings.Builder
			for i, x := range a {
				if x != nil {
					b.WriteString(ev.textOf(x, ts[i]))
				}
			}
			return b.String(), nil
		}},
		"coalesce": {max: -1, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			for _, x := range a {
				if x != nil {
					return x, nil
				}
			}
			return nil, nil
		}},
		"nullif": {min: 2, max: 2, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			if a[0] != nil && a[1] != nil {
				if c, ok := compare(a[0], a[1]); ok && c == 0 {
					return nil, nil
				}
			}
			return a[0], nil
		}},
		"greatest": {max: -1, call: extremum(1)},
		"least":    {max: -1, call: extremum(-1)},
		"string_to_array": {ret: types.OIDTextArray, min: 2, max: 2, strict: true, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			var out []any
			for _, p := range strings.Split(toText(a[0]), toText(a[1])) {
				out = append(out, p)
			}
			return out, nil
		}},
		"to_regclass": {ret: OIDRegclass, min: 1, max: 1, strict: true, call: func(ev *evaluator, a []any, _ []uint32) (any, error) {
			if n, ok := ev.cat.relByName(toText(a[0])); ok {
				return n, nil
			}
			return nil, nil
		}},
		"to_regtype": {ret: OIDRegtype, min: 1, max: 1, strict: true, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
			if t, ok := lookupType(toText(a[0])); ok {
				return int64(t), nil
			}
			return nil, nil
		}},
		"to_regnamespace": {ret: OIDRegnamesp, min: 1, max: 1, strict: true, call: func(ev *evaluator, a []any, _ []uint32) (any, error) {
			if n, ok := ev.cat.nspByName(toText(a[0])); ok {
				return n, nil
			}
			return nil, nil
		}},
		"has_table_privilege":      yes,
		"has_any_column_privilege": yes,
		"has_column_privilege":     yes,
		"has_schema_privilege":     yes,
		"has_database_privilege":   yes,
		"has_function_privilege":   yes,
		"has_sequence_privilege":   yes,
		"has_type_privilege":       yes,
		"has_tablespace_privilege": yes,
		"pg_has_role":              yes,
		"now":                      now,
		"current_timestamp":        now,
		"statement_timestamp":      now,
		"transaction_timestamp":    now,
		"clock_timestamp":          now,
		"pg_postmaster_start_time": constFn(types.OIDTimestampTZ, func(ev *evaluator) any { return ev.cat.s.startTime() }),
		"localtimestamp":           constFn(types.OIDTimestamp, func(*evaluator) any { return time.Now().Format("2006-01-02 15:04:05.999999") }),
		"current_date":             constFn(types.OIDText, func(*evaluator) any { return time.Now().Format("2006-01-02") }),
	}
	addRegistryFuncs()
}

func extremum(sign int) func(*evaluator, []any, []uint32) (any, error) {
	return func(_ *evaluator, a []any, _ []uint32) (any, error) {
		var best any
		for _, x := range a {
			if x == nil {
				continue
			}
			if best == nil {
				best = x
				continue
			}
			if c, ok := compare(x, best); ok && c*sign > 0 {
				best = x
			}
		}
		return best, nil
	}
}

func arrayLen(_ *evaluator, a []any, _ []uint32) (any, error) {
	arr, err := asArray(a[0])
	if err != nil || len(arr) == 0 {
		return nil, err
	}
	return int64(len(arr)), nil
}

func asArray(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case string:
		return parseArray(x), nil
	}
	return nil, errf(sqlerr.DatatypeMismatch, "%v is not an array", v)
}

func sizePretty(n int64) string {
	units := []string{"bytes", "kB", "MB", "GB", "TB"}
	i := 0
	for i < len(units)-1 && (n >= 10*1024 || n <= -10*1024) {
		n = (n + 512) / 1024
		i++
	}
	return fmt.Sprintf("%d %s", n, units[i])
}

func quoteIdent(s string) string {
	safe := s != ""
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			safe = false
		}
	}
	if safe && !reserved[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func quoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// call runs a scalar function.
func (ev *evaluator) call(name string, args []any, ts []uint32) (any, error) {
	f, ok := functions[name]
	if !ok {
		return nil, errf(sqlerr.UndefinedFunction, "function %s does not exist", name)
	}
	if len(args) < f.min || f.max >= 0 && len(args) > f.max {
		return nil, errf(sqlerr.UndefinedFunction, "function %s does not take %d arguments", name, len(args))
	}
	if f.strict {
		for _, a := range args {
			if a == nil {
				return nil, nil
			}
		}
	}
	return f.call(ev, args, ts)
}

// aggregate evaluates an aggregate over en's group.
func (ev *evaluator) aggregate(f *funcExpr, en *env) (any, error) {
	if en.group == nil {
		return nil, errf(sqlerr.GroupingError, "aggregate function %s is not allowed here", f.name)
	}
	type item struct {
		v    any
		keys []any
	}
	var items []item
	seen := map[string]bool{}
	for _, row := range en.group {
		re := &env{cols: en.cols, row: row, outer: en.outer}
		if f.filter != nil {
			ok, err := ev.eval(f.filter, re)
			if err != nil {
				return nil, err
			}
			if ok != true {
				continue
			}
		}
		var v any = true
		if !f.star {
			if len(f.args) == 0 {
				return nil, errf(sqlerr.UndefinedFunction, "function %s() does not exist", f.name)
			}
			x, err := ev.eval(f.args[0], re)
			if err != nil {
				return nil, err
			}
			v = x
		}
		if f.distinct {
			k := rowKey([]any{v})
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		it := item{v: v}
		for _, o := range f.order {
			k, err := ev.eval(o.e, re)
			if err != nil {
				return nil, err
			}
			it.keys = append(it.keys, k)
		}
		items = append(items, it)
	}
	if len(f.order) > 0 {
		sort.SliceStable(items, func(a, b int) bool {
			for k, o := range f.order {
				x, y := items[a].keys[k], items[b].keys[k]
				if x == nil || y == nil {
					if (x == nil) == (y == nil) {
						continue
					}
					return (x == nil) == o.desc
				}
				c, _ := compare(x, y)
				if c != 0 {
					return (c < 0) != o.desc
				}
			}
			return false
		})
	}
	var vals []any
	for _, it := range items {
		if it.v != nil || f.name == "array_agg" {
			vals = append(vals, it.v)
		}
	}
	switch f.name {
	case "count":
		return int64(len(vals)), nil
	case "array_agg":
		if len(vals) == 0 {
			return nil, nil
		}
		return vals, nil
	}
	if len(vals) == 0 {
		return nil, nil
	}
	switch f.name {
	case "string_agg":
		sep := ""
		if len(f.args) > 1 {
			s, err := ev.eval(f.args[1], en)
			if err != nil {
				return nil, err
			}
			sep = toText(s)
		}
		parts := make([]string, len(vals))
		t, err := ev.typeOf(f.args[0], en)
		if err != nil {
			return nil, err
		}
		for i, v := range vals {
			parts[i] = ev.textOf(v, t)
		}
		return strings.Join(parts, sep), nil
	case "min", "max":
		sign := -1
		if f.name == "max" {
			sign = 1
		}
		return extremum(sign)(ev, vals, nil)
	case "sum", "avg":
		var si int64
		var sf float64
		isInt := true
		for _, v := range vals {
			if n, ok := v.(int64); ok && isInt {
				si += n
				sf += float64(n)
				continue
			}
			isInt = false
			x, _ := toFloat(v)
			sf += x
		}
		if f.name == "avg" {
			return sf / float64(len(vals)), nil
		}
		if isInt {
			return si, nil
		}
		return sf, nil
	case "bool_and", "every", "bool_or":
		acc := f.name != "bool_or"
		for _, v := range vals {
			b, _ := toBool(v)
			if f.name == "bool_or" {
				acc = acc || b
			} else {
				acc = acc && b
			}
		}
		return acc, nil
	}
	return nil, errf(sqlerr.UndefinedFunction, "aggregate %s does not exist", f.name)
}

// tableFunc evaluates a set-returning function in FROM.
func (ev *evaluator) tableFunc(f *funcExpr, outer *env, typeOnly bool) (*relation, error) {
	var cols []colDef
	switch f.name {
	case "generate_series":
		cols = []colDef{{name: "generate_series", t: types.OIDInt4}}
	case "unnest":
		cols = []colDef{{name: "unnest", t: types.OIDText}}
		if len(f.args) == 1 {
			t, err := ev.typeOf(f.args[0], &env{outer: outer})
			if err != nil {
				return nil, err
			}
			if el := typeInfos[t].elem; el != 0 {
				cols[0].t = el
			}
		}
	case "pg_options_to_table":
		cols = []colDef{{name: "option_name", t: types.OIDText}, {name: "option_value", t: types.OIDText}}
	case "pg_get_keywords":
		cols = []colDef{{name: "word", t: types.OIDText}, {name: "catcode", t: types.OIDChar}, {name: "barelabel", t: types.OIDBool},
			{name: "catdesc", t: types.OIDText}, {name: "baredesc", t: types.OIDText}}
	default:
		// a scalar function in FROM is a one-row table
		if _, ok := functions[f.name]; !ok {
			return nil, errf(sqlerr.UndefinedFunction, "function %s does not exist", f.name)
		}
		en := &env{outer: outer}
		t, err := ev.typeOf(f, en)
		if err != nil {
			return nil, err
		}
		r := &relation{cols: []colDef{{name: f.name, t: t}}}
		if !typeOnly {
			v, err := ev.eval(f, en)
			if err != nil {
				return nil, err
			}
			r.rows = [][]any{{v}}
		}
		return r, nil
	}
	r := &relation{cols: cols}
	if typeOnly {
		return r, nil
	}
	en := &env{outer: outer}
	args := make([]any, len(f.args))
	for i, a := range f.args {
		v, err := ev.eval(a, en)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	switch f.name {
	case "generate_series":
		if len(args) < 2 || args[0] == nil || args[1] == nil {
			return r, nil
		}
		from, _ := toInt(args[0])
		to, _ := toInt(args[1])
		step := int64(1)
		if len(args) > 2 {
			step, _ = toInt(args[2])
		}
		if step == 0 {
			return nil, errf(sqlerr.InvalidParameter, "step size cannot equal zero")
		}
		for i := from; step > 0 && i <= to || step < 0 && i >= to; i += step {
			r.rows = append(r.rows, []any{i})
			if err := ev.spend(1); err != nil {
				return nil, err
			}
		}
	case "unnest":
		if len(args) != 1 || args[0] == nil {
			return r, nil
		}
		arr, err := asArray(args[0])
		if err != nil {
			return nil, err
		}
		for _, v := range arr {
			r.rows = append(r.rows, []any{v})
		}
	case "pg_get_keywords":
		words := make([]string, 0, len(reserved))
		for w := range reserved {
			words = append(words, w)
		}
		sort.Strings(words)
		for _, w := range words {
			r.rows = append(r.rows, []any{w, "R", false, "reserved", "requires AS"})
		}
	case "pg_options_to_table":
		if len(args) != 1 || args[0] == nil {
			return r, nil
		}
		arr, err := asArray(args[0])
		if err != nil {
			return nil, err
		}
		for _, v := range arr {
			k, val, _ := strings.Cut(toText(v), "=")
			r.rows = append(r.rows, []any{k, val})
		}
	}
	return r, nil
}

// typeOf is the static type of e.
func (ev *evaluator) typeOf(e expr, en *env) (uint32, error) {
	switch e := e.(type) {
	case *litExpr:
		return e.t, nil
	case *paramExpr:
		return types.OIDText, nil
	case *colExpr:
		x, i, err := en.lookup(e.qual, e.name)
		if err != nil {
			return 0, err
		}
		return x.cols[i].t, nil
	case *colRefIx:
		return en.cols[e.i].t, nil
	case *funcExpr:
		if e.over != nil {
			return types.OIDInt8, nil
		}
		switch e.name {
		case "count":
			return types.OIDInt8, nil
		case "string_agg":
			return types.OIDText, nil
		case "bool_and", "bool_or", "every":
			return types.OIDBool, nil
		case "avg":
			return types.OIDNumeric, nil
		case "sum", "min", "max", "array_agg":
			if len(e.args) == 0 {
				return 0, errf(sqlerr.UndefinedFunction, "function %s() does not exist", e.name)
			}
			t, err := ev.typeOf(e.args[0], en)
			if err != nil {
				return 0, err
			}
			switch {
			case e.name == "array_agg":
				if a := typeInfos[t].array; a != 0 {
					return a, nil
				}
				return types.OIDTextArray, nil
			case e.name == "sum" && classOf(t) == 'i':
				return types.OIDInt8, nil
			case e.name == "sum":
				return types.OIDFloat8, nil
			}
			return t, nil
		}
		f, ok := functions[e.name]
		if !ok {
			return 0, errf(sqlerr.UndefinedFunction, "function %s does not exist", e.name)
		}
		if f.ret != 0 {
			return f.ret, nil
		}
		for _, a := range e.args {
			t, err := ev.typeOf(a, en)
			if err != nil {
				return 0, err
			}
			if t != types.OIDUnknown {
				return t, nil
			}
		}
		return types.OIDText, nil
	case *binExpr:
		switch e.op {
		case "||":
			lt, err := ev.typeOf(e.l, en)
			if err != nil {
				return 0, err
			}
			rt, err := ev.typeOf(e.r, en)
			if err != nil {
				return 0, err
			}
			if classOf(lt) == 'a' {
				return lt, nil
			}
			if classOf(rt) == 'a' {
				return rt, nil
			}
			return types.OIDText, nil
		case "+", "-", "*", "/", "%":
			lt, err := ev.typeOf(e.l, en)
			if err != nil {
				return 0, err
			}
			rt, err := ev.typeOf(e.r, en)
			if err != nil {
				return 0, err
			}
			switch {
			case classOf(lt) == 'f' || classOf(rt) == 'f':
				return types.OIDFloat8, nil
			case lt == types.OIDInt8 || rt == types.OIDInt8:
				return types.OIDInt8, nil
			case classOf(lt) == 'i':
				return lt, nil
			}
			return rt, nil
		}
		return types.OIDBool, nil
	case *notExpr, *isExpr, *inExpr, *anyExpr, *betweenExpr, *likeExpr:
		return types.OIDBool, nil
	case *negExpr:
		return ev.typeOf(e.e, en)
	case *castExpr:
		return e.t, nil
	case *caseExpr:
		var branches []expr
		for _, w := range e.whens {
			branches = append(branches, w.then)
		}
		if e.els != nil {
			branches = append(branches, e.els)
		}
		for _, b := range branches {
			t, err := ev.typeOf(b, en)
			if err != nil {
				return 0, err
			}
			if t != types.OIDUnknown {
				return t, nil
			}
		}
		return types.OIDText, nil
	case *subExpr:
		if e.kind == 'x' {
			return types.OIDBool, nil
		}
		r, err := ev.query(e.q, en, true)
		if err != nil {
			return 0, err
		}
		t := r.cols[0].t
		if t == types.OIDUnknown {
			t = types.OIDText
		}
		if e.kind == 'a' {
			if a := typeInfos[t].array; a != 0 {
				return a, nil
			}
			return types.OIDTextArray, nil
		}
		return t, nil
	case *arrayExpr:
		if len(e.elems) > 0 {
			t, err := ev.typeOf(e.elems[0], en)
			if err != nil {
				return 0, err
			}
			if a := typeInfos[t].array; a != 0 {
				return a, nil
			}
		}
		return types.OIDTextArray, nil
	case *indexExpr:
		t, err := ev.typeOf(e.e, en)
		if err != nil {
			return 0, err
		}
		if el := typeInfos[t].elem; el != 0 {
			return el, nil
		}
		return types.OIDText, nil
	case *starExpr:
		return 0, errf(sqlerr.SyntaxError, "* is not allowed here")
	}
	return 0, errf(sqlerr.FeatureNotSupport, "expression %T is not supported", e)
}

var _ = strconv.Itoa

// formatFn is format(fmt, args...) with %s, %I, %L and %%.
func formatFn(ev *evaluator, f string, args []any, ts []uint32) (string, error) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		i++
		if i >= len(f) {
			return "", errf(sqlerr.InvalidParameter, "unterminated format() type specifier")
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		if n >= len(args) {
			return "", errf(sqlerr.InvalidParameter, "too few arguments for format()")
		}
		v, t := args[n], ts[n]
		n++
		switch f[i] {
		case 's':
			if v != nil {
				b.WriteString(ev.textOf(v, t))
			}
		case 'I':
			if v == nil {
				return "", errf(sqlerr.InvalidParameter, "null values cannot be formatted as an SQL identifier")
			}
			b.WriteString(quoteIdent(ev.textOf(v, t)))
		case 'L':
			if v == nil {
				b.WriteString("NULL")
			} else {
				b.WriteString(quoteLiteral(ev.textOf(v, t)))
			}
		default:
			return "", errf(sqlerr.InvalidParameter, "unrecognized format() type specifier %q", f[i])
		}
	}
	return b.String(), nil
}
