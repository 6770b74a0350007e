package datagen

import (
	"math"
	"sort"
)

// cursor walks the event numbers of one table in one partition: the n with
// n % partitions == p and EventType(n) == table, in increasing order. The
// pattern repeats every lcm(partitions, 50) events, so the cursor keeps the
// matching residues of one period and steps through them arithmetically:
// events of other types are never generated.
type cursor struct {
	residues []int64 // matching n - base within one period, increasing
	period   int64
	base     int64 // start of the current period (a multiple of period)
	idx      int   // position in residues
}

// newCursor returns the cursor of table t in partition p of parts,
// positioned at the first matching event.
func newCursor(t EventType, p, parts int) cursor {
	period := lcm(int64(parts), proportionTotal)
	c := cursor{period: period}
	for r := int64(p); r < period; r += int64(parts) {
		if eventTypeAt(r) == t {
			c.residues = append(c.residues, r)
		}
	}
	return c
}

// empty reports whether the partition never holds an event of the table
// (for example partition 0 of 50 only holds persons).
func (c *cursor) empty() bool { return len(c.residues) == 0 }

// seek positions the cursor at the first matching event ≥ n (n ≥ 0).
func (c *cursor) seek(n int64) {
	if c.empty() {
		return
	}
	c.base = n / c.period * c.period
	off := n - c.base
	c.idx = sort.Search(len(c.residues), func(i int) bool { return c.residues[i] >= off })
	if c.idx == len(c.residues) {
		c.base += c.period
		c.idx = 0
	}
}

// peek returns the next matching event, or MaxInt64 for an empty cursor.
func (c *cursor) peek() int64 {
	if c.empty() {
		return math.MaxInt64
	}
	return c.base + c.residues[c.idx]
}

// advance moves past the event peek returned.
func (c *cursor) advance() {
	c.idx++
	if c.idx == len(c.residues) {
		c.idx = 0
		c.base += c.period
	}
}

// lcm returns the least common multiple of two positive integers.
func lcm(a, b int64) int64 {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}
