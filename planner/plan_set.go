package planner

import (
	"strings"

	"github.com/streamsql/streamsql/types"
)

// SetCall is one call of a set-returning function (funcs.Func.ReturnsSet)
// over the columns of a ProjectSet's input.
type SetCall struct {
	Fn   string
	Args []Scalar
	T    types.Kind
}

// ProjectSet turns each input row into the rows of its set-returning
// calls: output row k is the input row followed by the k-th value of each
// call (NULL where a call's set is shorter: Postgres 10's lockstep for
// several calls in one SELECT list and for unnest(a, b)), then k itself
// when Ordinality. A row whose calls all return empty sets yields no row,
// or, with Outer (LEFT JOIN LATERAL ... ON true), the input row with
// NULLs. It is stateless: the output of a row is a function of the row,
// so a retracted input row retracts exactly the rows it produced, and
// the input's watermark columns pass through.
type ProjectSet struct {
	// Input is nil for a FROM clause that holds only the call (an ad-hoc
	// `SELECT * FROM generate_series(1, 3)`): one row without columns.
	// Without calls as well, and Outer, it is that one row: the FROM of
	// a SELECT without FROM.
	Input      Node
	Calls      []SetCall
	Names      []string // the appended columns: one per call, then the ordinality
	Ordinality bool
	Outer      bool
}

func (*ProjectSet) node() {}

// Schema implements Node: the input's columns, then one per call and the
// ordinality (BIGINT).
func (n *ProjectSet) Schema() types.Schema {
	var out types.Schema
	if n.Input != nil {
		out = append(out, n.Input.Schema()...)
	}
	for i, c := range n.Calls {
		out = append(out, types.Column{Name: n.Names[i], Type: c.T})
	}
	if n.Ordinality {
		out = append(out, types.Column{Name: n.Names[len(n.Calls)], Type: types.Int})
	}
	return out
}

// Children implements Node.
func (n *ProjectSet) Children() []Node {
	if n.Input == nil {
		return nil
	}
	return []Node{n.Input}
}

// WithChildren implements Node.
func (n *ProjectSet) WithChildren(ch ...Node) Node {
	if len(ch) == 0 {
		return n
	}
	c := *n
	c.Input = ch[0]
	return &c
}

// String implements Node.
func (n *ProjectSet) String() string {
	parts := make([]string, len(n.Calls))
	for i, c := range n.Calls {
		args := make([]string, len(c.Args))
		for j, a := range c.Args {
			args[j] = a.String()
		}
		parts[i] = c.Fn + "(" + strings.Join(args, ", ") + ") AS " + n.Names[i]
	}
	s := "ProjectSet " + strings.Join(parts, ", ")
	if n.Ordinality {
		s += " WITH ORDINALITY AS " + n.Names[len(n.Calls)]
	}
	if n.Outer {
		s += " (outer)"
	}
	return s
}
