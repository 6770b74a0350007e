package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// WindowTopN is the window Top-N (Flink's window Top-N and window
// deduplication): ROW_NUMBER(), RANK() or DENSE_RANK() OVER (PARTITION BY
// window_start, window_end[, k…] ORDER BY …) filtered to a rank <= Limit,
// over a window aggregate or a window TVF. It keeps, per window and
// partition, the best rows by Order (Limit rows for ROW_NUMBER; RANK and
// DENSE_RANK also keep the rows tied with the last one) and emits them,
// with their rank in column RankCol, once the watermark reaches the
// window's end; the window's rows are then dropped. Its output is
// append-only and final. State: at most Limit rows (plus ties for RANK
// and DENSE_RANK) per open window and partition.
type WindowTopN struct {
	Input Node
	// Fn is row_number, rank or dense_rank.
	Fn string
	// Partition are the PARTITION BY columns; they include the window's
	// StartCol and EndCol.
	Partition []int
	Order     []SortKey
	Limit     int64
	// RankCol is the input column the rank replaces (the OVER call's
	// place in the select list) and RankName its name.
	RankCol  int
	RankName string
	// StartCol and EndCol are window_start and window_end; EndCol
	// carries the watermark.
	StartCol, EndCol int
}

func (*WindowTopN) node() {}

// Schema implements Node: the input's columns, with the rank (BIGINT) in
// RankCol.
func (n *WindowTopN) Schema() types.Schema {
	in := n.Input.Schema()
	out := append(types.Schema(nil), in...)
	out[n.RankCol] = types.Column{Name: n.RankName, Type: types.Int}
	return out
}

// Children implements Node.
func (n *WindowTopN) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *WindowTopN) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// String implements Node.
func (n *WindowTopN) String() string {
	in := n.Input.Schema()
	return fmt.Sprintf("WindowTopN %s() <= %d partition=[%s] order=[%s] rank=%s",
		n.Fn, n.Limit, colList(n.Partition, in), sortList(n.Order, in), n.RankName)
}

// StateBound describes the operator's state bound for EXPLAIN and the
// contract.
func (n *WindowTopN) StateBound() string {
	rows := fmt.Sprintf("%d rows", n.Limit)
	if n.Limit == 1 {
		rows = "1 row"
	}
	if n.Fn != "row_number" {
		rows += " (and their ties)"
	}
	return rows + " per open window and partition, until window_end"
}

// sortList renders ORDER BY keys with their column names from in.
func sortList(keys []SortKey, in types.Schema) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = colName(k.Col, in)
		if k.Desc {
			parts[i] += " DESC"
		}
	}
	return strings.Join(parts, ", ")
}

// TopN is the keyed Top-N (Flink's Top-N and deduplication):
// ROW_NUMBER(), RANK() or DENSE_RANK() OVER (PARTITION BY k… ORDER BY …)
// filtered to a rank <= Limit, where the partition is not a window. Its
// output is an updating view of the best rows per partition, each with
// its rank in RankCol: a row entering the top retracts the row it
// displaces, and a row whose rank moves is retracted and inserted again
// with its new rank. Over an append-only input it keeps Limit rows (plus
// ties for RANK and DENSE_RANK) per partition; over a retracting input it
// keeps every row of a partition, to refill the top when a top row is
// retracted (KeepsAll).
type TopN struct {
	Input Node
	// Fn is row_number, rank or dense_rank.
	Fn        string
	Partition []int
	Order     []SortKey
	Limit     int64
	// RankCol is the input column the rank replaces and RankName its
	// name.
	RankCol  int
	RankName string
	// TTL (STATE TTL, µs; 0 none) drops a partition not updated for that
	// long, on the input's event time when it has a watermark column, the
	// wall clock otherwise, retracting its rows.
	TTL int64
	// End, when set (EndTopNPartitionsAtJoinCleanup), says when a
	// partition is final: no input row can reach it once the input's
	// watermark passes End.Expiry of its rows' End.Col. The partition is
	// then dropped and its ranked rows stay in the view.
	End *PartitionEnd
}

// PartitionEnd is when a keyed Top-N's partition can get no more rows:
// once the input's watermark passes Col + Offset of its rows (Strict:
// once it reaches it). Key names the unique key that ties each partition
// to one row of the join's side whose life ends there, for EXPLAIN.
type PartitionEnd struct {
	Col    int
	Offset int64
	Strict bool
	Key    string
}

// Expiry is the last watermark at which a row whose Col holds t can
// still be followed by another row of its partition.
func (e PartitionEnd) Expiry(t int64) int64 {
	if e.Strict {
		return t + e.Offset - 1
	}
	return t + e.Offset
}

// describe renders when a partition ends, naming its column from in.
func (e PartitionEnd) describe(in types.Schema) string {
	op := " > "
	if e.Strict {
		op = " >= "
	}
	at := colName(e.Col, in)
	switch {
	case e.Offset > 0:
		at += " + " + types.FormatInterval(e.Offset)
	case e.Offset < 0:
		at += " - " + types.FormatInterval(-e.Offset)
	}
	return "wm" + op + at + " (" + e.Key + " unique)"
}

func (*TopN) node() {}

// Schema implements Node: the input's columns, with the rank (BIGINT) in
// RankCol.
func (n *TopN) Schema() types.Schema {
	out := append(types.Schema(nil), n.Input.Schema()...)
	out[n.RankCol] = types.Column{Name: n.RankName, Type: types.Int}
	return out
}

// Children implements Node.
func (n *TopN) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *TopN) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// String implements Node.
func (n *TopN) String() string {
	in := n.Input.Schema()
	s := fmt.Sprintf("TopN %s() <= %d partition=[%s] order=[%s] rank=%s",
		n.Fn, n.Limit, colList(n.Partition, in), sortList(n.Order, in), n.RankName)
	if n.KeepsAll() {
		s += " keep=all"
	}
	if n.End != nil {
		s += " final=[" + n.End.describe(in) + "]"
	}
	return s
}

// KeepsAll reports whether the input retracts, so that every row of a
// partition is kept (a retracted top row gives way to the next one).
func (n *TopN) KeepsAll() bool { return !PropsOf(n.Input).AppendOnly }

// StateBound describes the operator's state bound for EXPLAIN and the
// contract.
func (n *TopN) StateBound() string {
	rows := "every input row per partition (the input retracts; bounded by its keys)"
	if !n.KeepsAll() {
		rows = fmt.Sprintf("%d rows", n.Limit)
		if n.Limit == 1 {
			rows = "1 row"
		}
		if n.Fn != "row_number" {
			rows += " (and their ties)"
		}
		rows += " per partition"
	}
	if n.End != nil {
		rows += ", a partition dropped once final (" + n.End.describe(n.Input.Schema()) + "), its rows kept by the view"
	}
	if n.TTL > 0 {
		clock := "event time"
		if TimeColumn(n.Input) < 0 {
			clock = "wall clock"
		}
		return rows + ", a partition idle for STATE TTL " + types.FormatInterval(n.TTL) + " (" + clock + ") dropped"
	}
	if n.KeepsAll() || n.End != nil {
		return rows
	}
	return rows + ", partitions unbounded"
}
