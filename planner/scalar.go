package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Scalar is a bound scalar expression over the columns of one input row.
// It is pure data: exec compiles it into an evaluator. The set of
// implementations is closed (ColRef, Const, Call, Case, Cast).
type Scalar interface {
	// Type is the kind of value the expression produces.
	Type() types.Kind
	// String renders the expression for EXPLAIN.
	String() string
	scalar()
}

// ColRef reads column Index of the input row.
type ColRef struct {
	Index int
	Name  string
	T     types.Kind
}

// Const is a literal value.
type Const struct{ V types.Value }

// Call applies a built-in function or operator. Fn is a lower-case name
// from the funcs registry (operators use their symbol:
// "+", "=", "and", ...).
type Call struct {
	Fn   string
	Args []Scalar
	T    types.Kind
}

// When is one WHEN cond THEN result arm of a Case.
type When struct {
	Cond, Result Scalar
}

// Case is CASE [Operand] WHEN ... THEN ... [ELSE ...] END. With an Operand,
// each When.Cond is compared to it for equality.
type Case struct {
	Operand Scalar // nil for a searched CASE
	Whens   []When
	Else    Scalar // nil means NULL
	T       types.Kind
}

// Cast converts Arg to kind To. A cast to DECIMAL(p, s) has Precision p
// and Scale s (the value is rounded to s and must fit p); Precision 0 is
// a cast to unconstrained DECIMAL. Zone is the IANA time zone a cast
// between TIMESTAMPTZ and a zone-less kind works in (the session's, or the
// view's fixed at its creation); "" means UTC.
type Cast struct {
	Arg              Scalar
	To               types.Kind
	Precision, Scale int
	Zone             string
}

func (*ColRef) scalar() {}
func (*Const) scalar()  {}
func (*Call) scalar()   {}
func (*Case) scalar()   {}
func (*Cast) scalar()   {}

// Type implements Scalar.
func (c *ColRef) Type() types.Kind { return c.T }

// Type implements Scalar.
func (c *Const) Type() types.Kind { return c.V.K }

// Type implements Scalar.
func (c *Call) Type() types.Kind { return c.T }

// Type implements Scalar.
func (c *Case) Type() types.Kind { return c.T }

// Type implements Scalar.
func (c *Cast) Type() types.Kind { return c.To }

// String implements Scalar.
func (c *ColRef) String() string {
	if c.Name != "" {
		return c.Name
	}
	return fmt.Sprintf("#%d", c.Index)
}

// String implements Scalar.
func (c *Const) String() string {
	switch c.V.K {
	case types.String, types.Timestamp:
		return "'" + c.V.String() + "'"
	case types.Date:
		return "DATE '" + c.V.String() + "'"
	case types.Interval:
		return "INTERVAL '" + c.V.String() + "'"
	case types.JSONB:
		return "'" + c.V.String() + "'::JSONB"
	case types.TimestampTZ:
		return "TIMESTAMPTZ '" + c.V.String() + "'"
	case types.Time:
		return "TIME '" + c.V.String() + "'"
	}
	return c.V.String()
}

// String implements Scalar.
func (c *Call) String() string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = a.String()
	}
	if isOperator(c.Fn) && len(args) == 2 {
		return "(" + args[0] + " " + c.Fn + " " + args[1] + ")"
	}
	return c.Fn + "(" + strings.Join(args, ", ") + ")"
}

func isOperator(fn string) bool {
	switch fn {
	case "+", "-", "*", "/", "%", "=", "<>", "<", "<=", ">", ">=", "and", "or", "||", "like":
		return true
	}
	return false
}

// String implements Scalar.
func (c *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	if c.Operand != nil {
		b.WriteString(" " + c.Operand.String())
	}
	for _, w := range c.Whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Result.String())
	}
	if c.Else != nil {
		b.WriteString(" ELSE " + c.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

// String implements Scalar.
func (c *Cast) String() string {
	return "CAST(" + c.Arg.String() + " AS " + types.Column{Type: c.To, Precision: c.Precision, Scale: c.Scale}.TypeName() + ")"
}

// TypeMod returns the DECIMAL precision and scale s declares for its
// value when in is its input schema: a column's own, or a cast's (0, 0:
// none).
func TypeMod(s Scalar, in types.Schema) (precision, scale int) {
	switch e := s.(type) {
	case *ColRef:
		if e.Index >= 0 && e.Index < len(in) && in[e.Index].Type == e.T {
			return in[e.Index].Precision, in[e.Index].Scale
		}
	case *Cast:
		return e.Precision, e.Scale
	}
	return 0, 0
}

// ColumnsUsed adds to set every input column index s reads.
func ColumnsUsed(s Scalar, set map[int]bool) {
	switch e := s.(type) {
	case *ColRef:
		set[e.Index] = true
	case *Const:
	case *Call:
		for _, a := range e.Args {
			ColumnsUsed(a, set)
		}
	case *Case:
		if e.Operand != nil {
			ColumnsUsed(e.Operand, set)
		}
		for _, w := range e.Whens {
			ColumnsUsed(w.Cond, set)
			ColumnsUsed(w.Result, set)
		}
		if e.Else != nil {
			ColumnsUsed(e.Else, set)
		}
	case *Cast:
		ColumnsUsed(e.Arg, set)
	}
}

// MapColRefs returns s with every ColRef replaced by fn(ref); the other
// nodes are copied only on the way to a replaced reference's parents.
func MapColRefs(s Scalar, fn func(*ColRef) Scalar) Scalar {
	return rewriteScalar(s, func(n Scalar) (Scalar, bool) {
		if r, ok := n.(*ColRef); ok {
			return fn(r), true
		}
		return nil, false
	})
}

// rewriteScalar returns s rewritten from the top: fn sees each node first,
// and a replacement it returns (ok) stands for the node's whole subtree;
// otherwise a Call, Case or Cast is copied with its operands rewritten,
// and a leaf is kept as it is.
func rewriteScalar(s Scalar, fn func(Scalar) (Scalar, bool)) Scalar {
	if r, ok := fn(s); ok {
		return r
	}
	switch e := s.(type) {
	case *Call:
		c := *e
		c.Args = make([]Scalar, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = rewriteScalar(a, fn)
		}
		return &c
	case *Case:
		c := *e
		if e.Operand != nil {
			c.Operand = rewriteScalar(e.Operand, fn)
		}
		c.Whens = make([]When, len(e.Whens))
		for i, w := range e.Whens {
			c.Whens[i] = When{rewriteScalar(w.Cond, fn), rewriteScalar(w.Result, fn)}
		}
		if e.Else != nil {
			c.Else = rewriteScalar(e.Else, fn)
		}
		return &c
	case *Cast:
		c := *e
		c.Arg = rewriteScalar(e.Arg, fn)
		return &c
	}
	return s
}

// RemapColumns returns s with every ColRef index i replaced by m[i].
func RemapColumns(s Scalar, m map[int]int) Scalar {
	return MapColRefs(s, func(r *ColRef) Scalar {
		c := *r
		c.Index = m[r.Index]
		return &c
	})
}
