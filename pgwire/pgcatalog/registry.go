package pgcatalog

import (
	"strings"
	"sync"

	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// This file connects the catalog to the funcs registry: the registry's
// scalar functions are callable in catalog queries (one implementation
// for views, ad-hoc queries and psql's catalog queries), and pg_proc
// lists them, so psql's \df shows what the engine has.

// addRegistryFuncs adds every function of the funcs registry that is
// evaluated value by value (and its aliases) to the catalog evaluator's
// functions, unless the catalog has its own (concat skips NULLs there, as
// in Postgres).
func addRegistryFuncs() {
	for _, n := range funcs.Names() {
		f, _ := funcs.Lookup(n)
		if !f.Evaluated() || f.ReturnsSet() || !isFuncName(n) {
			continue // set-returning functions are the catalog's table functions
		}
		names := append([]string{n}, f.Aliases...)
		for _, name := range names {
			if _, own := functions[name]; !own {
				functions[name] = registryFn(f)
			}
		}
	}
}

func isFuncName(n string) bool { return strings.Trim(n, "abcdefghijklmnopqrstuvwxyz_0123456789") == "" }

// registryFn adapts f to the catalog evaluator: the arguments convert to
// the kinds of f's signature of their arity, and every argument counts as
// a constant for f's Prepare.
func registryFn(f *funcs.Func) fnDef {
	least, most := f.Arity()
	ret := types.OIDOf(f.Sigs[0].Result)
	return fnDef{ret: ret, min: least, max: most, strict: f.Strict, call: func(_ *evaluator, a []any, _ []uint32) (any, error) {
		sig, ok := f.SigFor(len(a))
		if !ok {
			return nil, errf(sqlerr.UndefinedFunction, "function %s does not take %d arguments", f.Name, len(a))
		}
		vals := make([]types.Value, len(a))
		consts := make([]*types.Value, len(a))
		for i, x := range a {
			vals[i] = toValue(x, sig.Param(i))
			consts[i] = &vals[i]
		}
		impl := f.Impl
		if f.Prepare != nil {
			var err *sqlerr.Error
			if impl, err = f.Prepare(consts); err != nil {
				return nil, err
			}
		}
		v, err := impl.Call(vals)
		if err != nil {
			return nil, err
		}
		return fromValue(v), nil
	}}
}

// toValue converts a catalog value to the kind a signature wants.
func toValue(x any, k types.Kind) types.Value {
	if x == nil {
		return types.NullValue
	}
	switch k {
	case types.Int:
		n, _ := toInt(x)
		return types.IntValue(n)
	case types.Float:
		if f, ok := x.(float64); ok {
			return types.FloatValue(f)
		}
		n, _ := toInt(x)
		return types.FloatValue(float64(n))
	case types.Bool:
		b, _ := x.(bool)
		return types.BoolValue(b)
	}
	return types.StringValue(toText(x))
}

// fromValue converts a registry result to a catalog value.
func fromValue(v types.Value) any {
	switch v.K {
	case types.Null:
		return nil
	case types.Int:
		return v.I
	case types.Float:
		return v.F
	case types.Bool:
		return v.I != 0
	case types.String:
		return v.S
	}
	return v.String()
}

// procOIDBase numbers pg_proc's rows of the registry's functions in
// 8000-9999, the OIDs Postgres leaves unused in its releases, below
// those of user objects (firstOID).
const procOIDBase = 9000

// procRows are pg_proc's rows: one per signature of every registry
// function that has a name (operators are pg_operator's, not listed).
func procRows() []row {
	var out []row
	oid := int64(procOIDBase)
	for _, n := range funcs.Names() {
		f, _ := funcs.Lookup(n)
		if !isFuncName(n) || strings.HasPrefix(n, "is_") || n == "and" || n == "or" || n == "not" || n == "in" || n == "neg" {
			continue
		}
		vol := "i"
		if f.Volatile {
			vol = "v"
		}
		rows := float64(0)
		if f.ReturnsSet() {
			rows = 1000 // Postgres's default estimate for a set-returning function
		}
		for _, s := range f.Sigs {
			args := make([]any, len(s.Args))
			for i, k := range s.Args {
				args[i] = int64(procTypeOID(k))
			}
			variadic := int64(0)
			if s.Variadic {
				variadic = int64(procTypeOID(s.Args[len(s.Args)-1]))
			}
			out = append(out, row{"oid": oid, "proname": n, "pronamespace": int64(nspCatalog), "proowner": int64(userOID),
				"prolang": int64(12), "procost": float64(1), "prorows": rows, "provariadic": variadic, "prosupport": "-",
				"prokind": "f", "proisstrict": f.Strict, "proretset": f.ReturnsSet(), "provolatile": vol, "proparallel": "s", "pronargs": int64(len(s.Args)),
				"pronargdefaults": int64(0), "prorettype": int64(procTypeOID(s.Result)), "proargtypes": args, "prosrc": n})
			oid++
		}
	}
	return out
}

// procTypeOID is types.OIDOf with the pseudo-types of signatures.
func procTypeOID(k types.Kind) uint32 {
	switch k {
	case funcs.AnyElement:
		return 2283
	case funcs.AnyKind:
		return 2276
	case funcs.AnyArray:
		return 2277
	}
	return types.OIDOf(k)
}

var (
	procOnce  sync.Once
	procByOID map[int64]row
)

// sqlProcOIDBase numbers pg_proc's rows of the SQL functions (CREATE
// FUNCTION) in creation order, below the registry's.
const sqlProcOIDBase = 8000

// sqlProcRows are pg_proc's rows of the SQL functions fns: in public,
// LANGUAGE sql (prolang 14), immutable, their body as prosrc, their
// parameter names in proargnames.
func sqlProcRows(fns []Object) []row {
	out := make([]row, 0, len(fns))
	for i, f := range fns {
		args := make([]any, len(f.Columns))
		names := make([]any, len(f.Columns))
		for j, c := range f.Columns {
			args[j], names[j] = int64(types.OIDOf(c.Type)), c.Name
		}
		ret := Column{Type: types.String}
		if f.Result != nil {
			ret = *f.Result
		}
		out = append(out, row{"oid": int64(sqlProcOIDBase + i), "proname": strings.ToLower(f.Name), "pronamespace": int64(nspPublic),
			"proowner": int64(userOID), "prolang": int64(14), "procost": float64(100), "prorows": float64(0), "provariadic": int64(0),
			"prosupport": "-", "prokind": "f", "proisstrict": false, "provolatile": "i", "proparallel": "s",
			"pronargs": int64(len(args)), "pronargdefaults": int64(0), "prorettype": int64(types.OIDOf(ret.Type)),
			"proargtypes": args, "proargnames": names, "prosrc": f.Definition,
			"argmods": sqlArgMods(f.Columns), "retmod": typeMod(ret)})
	}
	return out
}

// sqlArgMods are the type modifiers of a SQL function's parameters
// (DECIMAL(p, s)'s), for pg_get_function_arguments.
func sqlArgMods(cols []Column) []int64 {
	out := make([]int64, len(cols))
	for i, c := range cols {
		out[i] = typeMod(c)
	}
	return out
}

// proc returns the pg_proc row of a function's OID: a SQL function's or
// the registry's.
func (cd *catData) proc(oid int64) (row, bool) {
	for _, r := range cd.procs {
		if r["oid"].(int64) == oid {
			return r, true
		}
	}
	return procSignature(oid)
}

// procSignature returns the pg_proc row of a registry function's OID.
func procSignature(oid int64) (row, bool) {
	procOnce.Do(func() {
		procByOID = map[int64]row{}
		for _, r := range procRows() {
			procByOID[r["oid"].(int64)] = r
		}
	})
	r, ok := procByOID[oid]
	return r, ok
}

// procDescribe is pg_get_function_result (result) or
// pg_get_function_arguments of a registry function's OID; NULL for
// others.
func procDescribe(result bool) fnDef {
	return fnDef{ret: types.OIDText, min: 1, max: 1, strict: true, call: func(ev *evaluator, a []any, _ []uint32) (any, error) {
		oid, _ := toInt(a[0])
		r, ok := ev.cat.proc(oid)
		if !ok {
			return nil, nil
		}
		retMod, _ := r["retmod"].(int64)
		argMods, _ := r["argmods"].([]int64)
		argNames, _ := r["proargnames"].([]any)
		if result {
			if retMod == 0 {
				retMod = -1
			}
			t := formatType(uint32(r["prorettype"].(int64)), retMod)
			if set, _ := r["proretset"].(bool); set {
				t = "SETOF " + t
			}
			return t, nil
		}
		args := r["proargtypes"].([]any)
		names := make([]string, len(args))
		for i, t := range args {
			mod := int64(-1)
			if i < len(argMods) {
				mod = argMods[i]
			}
			names[i] = formatType(uint32(t.(int64)), mod)
			if i < len(argNames) && argNames[i] != "" {
				names[i] = argNames[i].(string) + " " + names[i]
			}
		}
		if r["provariadic"].(int64) != 0 {
			names[len(names)-1] = "VARIADIC " + names[len(names)-1]
		}
		return strings.Join(names, ", "), nil
	}}
}
