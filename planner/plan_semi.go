package planner

import (
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// SemiKind is the kind of a SemiJoin.
type SemiKind string

// Semi join kinds.
const (
	// Semi keeps a left row while it has at least one matching right row
	// (IN (SELECT …), EXISTS).
	Semi SemiKind = "semi"
	// Anti keeps a left row while it has no matching right row (NOT
	// EXISTS).
	Anti SemiKind = "anti"
	// NullAwareAnti is NOT IN (SELECT …) with SQL's NULL rule: no left
	// row qualifies while the right side holds a NULL key, and a left row
	// with a NULL key qualifies only while the right side is empty.
	NullAwareAnti SemiKind = "anti null-aware"
)

// SemiJoin filters its left input by the existence of matching rows in
// its right input: LeftKeys[i] = RightKeys[i] (a NULL key matches
// nothing) and Residual, when set, over the left row followed by the
// right row. Its output is the left input's columns. With no keys every
// right row is a candidate for every left row.
type SemiJoin struct {
	Left, Right         Node
	Kind                SemiKind
	LeftKeys, RightKeys []int
	Residual            Scalar
	// TTL bounds the state (STATE TTL), as for a regular join: a stored
	// row is forgotten, without a retraction, once the other input's
	// watermark passes its time + TTL (LeftTime and RightTime are then
	// the inputs' watermark columns), or TTL after it was stored on the
	// wall clock when an input has none (they are -1).
	TTL                 int64
	LeftTime, RightTime int
}

func (*SemiJoin) node() {}

// Schema implements Node: the left input's columns.
func (n *SemiJoin) Schema() types.Schema { return n.Left.Schema() }

// Children implements Node.
func (n *SemiJoin) Children() []Node { return []Node{n.Left, n.Right} }

// WithChildren implements Node.
func (n *SemiJoin) WithChildren(ch ...Node) Node {
	c := *n
	c.Left, c.Right = ch[0], ch[1]
	return &c
}

// String implements Node: SemiJoin or AntiJoin with its keys.
func (n *SemiJoin) String() string {
	op := "SemiJoin"
	if n.Kind != Semi {
		op = "AntiJoin"
	}
	s := fmt.Sprintf("%s left=[%s] right=[%s]", op, colList(n.LeftKeys, n.Left.Schema()), colList(n.RightKeys, n.Right.Schema()))
	if n.Kind == NullAwareAnti {
		s += " null-aware"
	}
	if n.Residual != nil {
		s += " residual=" + n.Residual.String()
	}
	if n.TTL > 0 {
		s += " ttl=" + types.FormatInterval(n.TTL)
	}
	return s
}

// StateBound is how the join's state is bounded: by STATE TTL on event
// time or the wall clock, otherwise not at all (the left rows and the
// right rows by key are kept forever).
func (n *SemiJoin) StateBound() string {
	if n.TTL == 0 {
		return "unbounded"
	}
	clock := " (wall clock)"
	if n.LeftTime >= 0 && n.RightTime >= 0 {
		clock = " (event time)"
	}
	return "STATE TTL " + types.FormatInterval(n.TTL) + clock
}

// semiProps derives a semi or anti join's properties. A semi join over
// append-only inputs only ever adds left rows (a match, once there,
// never leaves); an anti join retracts a row when its first match
// arrives. A left row may come out long after its time, when its match
// arrives, so no column carries a watermark.
func semiProps(n *SemiJoin) Props {
	ao := n.Kind == Semi && PropsOf(n.Left).AppendOnly && PropsOf(n.Right).AppendOnly
	return Props{AppendOnly: ao, TimeCol: -1, StateBound: n.StateBound()}
}

// InstancesOf is the number of instances keyed node n runs as at
// parallelism par: par, but one for a null-aware anti join (NOT IN),
// whose NULL rule reads the whole right input.
func InstancesOf(n Node, par int) int {
	if s, ok := n.(*SemiJoin); ok && s.Kind == NullAwareAnti {
		return 1
	}
	return par
}
