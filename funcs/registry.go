package funcs

import (
	"sort"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Pseudo-kinds that appear only in function signatures, never in values.
const (
	// AnyElement stands for any kind, the same one for every AnyElement
	// argument of a call (Postgres's anyelement). The binder unifies the
	// arguments' kinds (Int with Float gives Float, an untyped string
	// literal takes the other arguments' kind) and an AnyElement result is
	// the unified kind.
	AnyElement types.Kind = 254
	// AnyKind stands for any kind, independently per argument.
	AnyKind types.Kind = 255
	// AnyArray stands for an array whose element kind joins the call's
	// AnyElement unification (Postgres's anyarray): `[]`(anyarray, bigint)
	// returns the element kind, and an AnyArray result is the array of
	// the unified kind.
	AnyArray types.Kind = 253
)

// Sig is one accepted signature of a function: the argument kinds and the
// result kind. With Variadic the last argument kind may repeat any number
// of times (at least once).
type Sig struct {
	Args     []types.Kind
	Variadic bool
	Result   types.Kind
}

// Impl evaluates a function on argument values; the field matching the
// call's arity is used (FN for any arity). For a Strict function exec
// calls it only when no argument is NULL. A returned error is a runtime
// failure: the value becomes NULL and the error is counted.
type Impl struct {
	F1 func(a types.Value) (types.Value, *sqlerr.Error)
	F2 func(a, b types.Value) (types.Value, *sqlerr.Error)
	F3 func(a, b, c types.Value) (types.Value, *sqlerr.Error)
	FN func(args []types.Value) (types.Value, *sqlerr.Error)
}

// Call evaluates i on args without regard to strictness (the caller
// checks NULLs); it fails when i has no form for len(args) arguments.
func (i Impl) Call(args []types.Value) (types.Value, *sqlerr.Error) {
	switch {
	case len(args) == 1 && i.F1 != nil:
		return i.F1(args[0])
	case len(args) == 2 && i.F2 != nil:
		return i.F2(args[0], args[1])
	case len(args) == 3 && i.F3 != nil:
		return i.F3(args[0], args[1], args[2])
	case i.FN != nil:
		return i.FN(args)
	}
	return types.NullValue, sqlerr.New(sqlerr.UndefinedFunction, "function does not take %d arguments", len(args))
}

// Arity returns the fewest and most arguments f's signatures take (-1:
// any number).
func (f *Func) Arity() (least, most int) {
	least = -1
	for _, s := range f.Sigs {
		n := len(s.Args)
		if least < 0 || n < least {
			least = n
		}
		switch {
		case s.Variadic:
			most = -1
		case most >= 0 && n > most:
			most = n
		}
	}
	return max(least, 0), most
}

// SigFor returns f's first signature that takes n arguments.
func (f *Func) SigFor(n int) (Sig, bool) {
	for _, s := range f.Sigs {
		if len(s.Args) == n || (s.Variadic && n >= len(s.Args)) {
			return s, true
		}
	}
	return Sig{}, false
}

// Param is the kind of argument i of a call matching s.
func (s Sig) Param(i int) types.Kind {
	if i >= len(s.Args) {
		return s.Args[len(s.Args)-1]
	}
	return s.Args[i]
}

// Empty reports whether no field of i is set.
func (i Impl) Empty() bool { return i.F1 == nil && i.F2 == nil && i.F3 == nil && i.FN == nil }

// Func describes one built-in function or operator: its canonical name
// (the Call.Fn the binder emits and exec evaluates), its signatures, how
// it treats NULL and how it is evaluated.
type Func struct {
	Name string
	// Doc is a one-line description for docs/sql.md's function table.
	Doc  string
	Sigs []Sig
	// Strict functions return NULL when any argument is NULL; exec does not
	// call them then. Non-strict ones (AND, OR, COALESCE, IS NULL, ...)
	// see NULL arguments.
	Strict bool
	// MixedNumeric operators take Int and Float operands as they are: the
	// binder inserts no Cast and exec compares or computes across the two.
	// For every other function an Int argument passed where a Float is
	// declared is wrapped in a Cast by the binder.
	MixedNumeric bool
	// Volatile functions (now) give a different answer per call; the
	// planner refuses them in continuous queries.
	Volatile bool
	// Impl evaluates the function value by value. It is empty for the
	// operators and functions exec compiles itself.
	Impl Impl
	// Prepare, when set, specialises Impl for a call: consts[i] is the
	// value of argument i when it is a constant and nil otherwise. Its
	// error (a malformed constant pattern) fails the statement.
	Prepare func(consts []*types.Value) (Impl, *sqlerr.Error)
	// Set, when set, makes f a set-returning function (ReturnsSet): a call
	// yields the rows Set returns, and Impl is unused.
	Set SetImpl
	// Aliases are the other spellings users write (ceiling for ceil).
	Aliases []string
	// Family groups the function in docs/sql.md's table.
	Family string
}

// Evaluated reports whether exec evaluates f through Impl or Prepare
// rather than compiling it itself.
func (f *Func) Evaluated() bool { return f.Prepare != nil || !f.Impl.Empty() || f.Set != nil }

func sigs(s ...Sig) []Sig { return s }

func with(base []Sig, more ...Sig) []Sig {
	return append(append([]Sig(nil), base...), more...)
}

// sig builds a fixed-arity signature: the last kind is the result.
func sig(ks ...types.Kind) Sig {
	return Sig{Args: ks[:len(ks)-1], Result: ks[len(ks)-1]}
}

// families lists every registered family in docs order.
var families = []struct {
	name  string
	funcs []*Func
}{
	{"Arithmetic", arithmeticFuncs},
	{"Comparison and logic", logicFuncs},
	{"Conditional", conditionalFuncs},
	{"String", stringFuncs},
	{"Regular expression", append(regexFuncs, similarFuncs...)},
	{"Math", mathFuncs},
	{"Date and time", timeFuncs},
	{"Time zones", zoneFuncs},
	{"Formatting", formatFuncs},
	{"JSON", jsonFuncs},
	{"Binary string", byteaFuncs},
	{"Array", arrayFuncs},
	{"Set-returning", setFuncs},
}

var (
	table   = map[string]*Func{}
	aliases = map[string]string{}
)

func init() {
	for _, fam := range families {
		for _, f := range fam.funcs {
			f.Family = fam.name
			table[f.Name] = f
			for _, a := range f.Aliases {
				aliases[a] = f.Name
			}
		}
	}
}

// Lookup returns the built-in named name (canonical or alias,
// case-insensitive).
func Lookup(name string) (*Func, bool) {
	n := strings.ToLower(name)
	if c, ok := aliases[n]; ok {
		n = c
	}
	f, ok := table[n]
	return f, ok
}

// Names returns every canonical function and operator name, sorted.
func Names() []string {
	out := make([]string, 0, len(table))
	for n := range table {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Aliases returns the alias → canonical name map (a copy).
func Aliases() map[string]string {
	out := make(map[string]string, len(aliases))
	for a, c := range aliases {
		out[a] = c
	}
	return out
}
