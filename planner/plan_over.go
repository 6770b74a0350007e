package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// OverAggregate is the running aggregate over an event-time order
// (Flink's OVER aggregation): sum, avg, count, min and max OVER
// (PARTITION BY … ORDER BY ts ROWS|RANGE BETWEEN … PRECEDING AND CURRENT
// ROW), ts a TIMESTAMP column. Each row comes out with the aggregates of
// its frame appended to its columns.
//
// With LATE DATA DROP EMIT ON WINDOW CLOSE (ts must carry the watermark
// and the input be append-only) it buffers each partition's rows until
// the watermark passes their ts, then emits them in ts order, final:
// the output is append-only. State: the rows the watermark has not
// passed, plus per partition the last Rows rows (ROWS), the rows within
// Range of the newest (RANGE) or one accumulator per call (UNBOUNDED
// PRECEDING).
//
// Without an EMIT clause (or with EMIT ON UPDATE) it is an updating view
// (Updating): a row comes out at once over the rows seen so far, and a
// row that lands earlier in the order, or a delete from a retracting
// input, retracts and re-emits the later rows whose frames it reaches.
// State: when LetsGo, the rows within the watermark delay plus the frame
// per partition; otherwise every row of every partition.
//
// A row whose ts the watermark had passed when it arrived is late and
// dropped (when ts carries the watermark). Partitions are unbounded
// unless STATE TTL.
type OverAggregate struct {
	Input     Node
	Partition []int
	// TimeCol is the ORDER BY column (a TIMESTAMP; it carries the
	// watermark in the EMIT ON WINDOW CLOSE form).
	TimeCol int
	// Rows says the frame counts rows (ROWS) rather than ts (RANGE).
	Rows bool
	// Unbounded is UNBOUNDED PRECEDING; otherwise Preceding is the
	// frame's reach: rows before the current one (ROWS) or microseconds
	// (RANGE).
	Unbounded bool
	Preceding int64
	Aggs      []AggCall
	Names     []string
	// TTL (STATE TTL, microseconds; 0 = none) drops a partition with no
	// buffered rows once the watermark passes its newest row's ts by TTL:
	// its frame starts afresh if the key comes back. The updating form
	// that cannot let go (!LetsGo) runs it on the wall clock instead: a
	// partition unchanged for TTL is dropped and its rows retracted.
	TTL int64
	// Emit is the view's EMIT mode (attachContract): "on_window_close"
	// (final rows), or "" and "on_update" (Updating).
	Emit string
}

func (*OverAggregate) node() {}

// Updating reports whether the node is the updating form (no EMIT ON
// WINDOW CLOSE): its output retracts and corrects rows.
func (n *OverAggregate) Updating() bool { return n.Emit != "on_window_close" }

// LetsGo reports whether the updating form can let go of rows the
// watermark passed: its input is append-only and ts carries the
// watermark, so no change can land before such a row.
func (n *OverAggregate) LetsGo() bool {
	return PropsOf(n.Input).AppendOnly && TimeColumnOf(n.Input, n.TimeCol)
}

// Schema implements Node: the input's columns, then one per call.
func (n *OverAggregate) Schema() types.Schema {
	out := append(types.Schema(nil), n.Input.Schema()...)
	for i, a := range n.Aggs {
		out = append(out, types.Column{Name: n.Names[i], Type: a.T})
	}
	return out
}

// Children implements Node.
func (n *OverAggregate) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *OverAggregate) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// FrameText renders the frame as SQL.
func (n *OverAggregate) FrameText() string {
	kind := "RANGE"
	if n.Rows {
		kind = "ROWS"
	}
	switch {
	case n.Unbounded:
		return kind + " UNBOUNDED PRECEDING"
	case n.Rows:
		return fmt.Sprintf("ROWS %d PRECEDING", n.Preceding)
	}
	return "RANGE " + types.FormatInterval(n.Preceding) + " PRECEDING"
}

// String implements Node.
func (n *OverAggregate) String() string {
	in := n.Input.Schema()
	aggs := make([]string, len(n.Aggs))
	for i, a := range n.Aggs {
		aggs[i] = a.Format(in)
	}
	s := fmt.Sprintf("OverAggregate partition=[%s] order=%s frame=%s aggs=[%s]",
		colList(n.Partition, in), colName(n.TimeCol, in), n.FrameText(), strings.Join(aggs, ", "))
	if n.TTL > 0 {
		s += " ttl=" + types.FormatInterval(n.TTL)
	}
	return s
}

// StateBound describes the operator's state bound for EXPLAIN and the
// contract.
func (n *OverAggregate) StateBound() string {
	per := "one accumulator per call"
	switch {
	case n.Unbounded:
	case n.Rows:
		per = fmt.Sprintf("the last %d rows", n.Preceding)
	default:
		per = "the rows within " + types.FormatInterval(n.Preceding)
	}
	parts := "partitions unbounded"
	if tb := tableBound(n.Input); tb != "" {
		parts = "partitions " + tb
	}
	switch {
	case n.TTL > 0 && n.Updating() && !n.LetsGo():
		parts = "a partition kept until it is unchanged for STATE TTL " + types.FormatInterval(n.TTL) + " (wall clock)"
	case n.TTL > 0:
		parts = "a partition kept until the watermark passes its newest row by STATE TTL " + types.FormatInterval(n.TTL)
	}
	switch {
	case !n.Updating():
		return "rows until the watermark passes their ts, plus " + per + " per partition, " + parts
	case n.LetsGo():
		return "rows within the watermark delay, plus " + per + " before them per partition, " + parts
	}
	return "every row of every partition (a retracting input or an order without a watermark), " + parts
}
