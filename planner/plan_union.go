package planner

import (
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// Union is UNION ALL: every change of every input, unchanged. Its inputs
// have the same column count and kinds (the builder casts them to the
// kinds Postgres unifies them to); the output names are the first
// input's. It keeps no state. Its watermark is the minimum of its inputs'
// watermarks, so a column carries a watermark only when it does in every
// input. UNION (distinct) is an Aggregate over every column above it.
type Union struct {
	Inputs []Node
}

func (*Union) node() {}

// Schema implements Node: the first input's columns.
func (n *Union) Schema() types.Schema { return n.Inputs[0].Schema() }

// Children implements Node.
func (n *Union) Children() []Node { return n.Inputs }

// WithChildren implements Node.
func (n *Union) WithChildren(ch ...Node) Node {
	return &Union{Inputs: append([]Node(nil), ch...)}
}

// String implements Node.
func (n *Union) String() string { return fmt.Sprintf("Union all inputs=%d", len(n.Inputs)) }

// unionProps are the properties of a Union's output: append-only when
// every input is, and a watermark column where every input has it.
func unionProps(n *Union) Props {
	out := Props{AppendOnly: true, TimeCol: -1}
	for i, in := range n.Inputs {
		p := PropsOf(in)
		out.AppendOnly = out.AppendOnly && p.AppendOnly
		switch {
		case i == 0:
			out.TimeCol = p.TimeCol
		case p.TimeCol != out.TimeCol:
			out.TimeCol = -1
		}
	}
	return out
}

// unionTimeColumnOf reports whether column col of a Union carries a
// watermark: it must in every input.
func unionTimeColumnOf(n *Union, col int) bool {
	for _, in := range n.Inputs {
		if !TimeColumnOf(in, col) {
			return false
		}
	}
	return true
}
