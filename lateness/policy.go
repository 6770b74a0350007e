package lateness

import (
	"sort"
	"sync"
)

// Policy is what a window operator does with a row that arrives for a
// window that has already fired (see dialect.md, "Exact semantics").
type Policy uint8

// The late-data policies.
const (
	// Drop ignores rows for fired windows.
	Drop Policy = iota + 1
	// Update applies rows to fired windows while their state is kept and
	// re-emits the corrected row.
	Update
	// SideOutput writes rows for fired or expired windows to the side table
	// and leaves the window unchanged.
	SideOutput
	// UpdateSideOutput updates kept windows and sends rows for expired
	// windows to the side table.
	UpdateSideOutput
)

// String returns the policy's label for metrics and EXPLAIN.
func (p Policy) String() string {
	switch p {
	case Drop:
		return "drop"
	case Update:
		return "update"
	case SideOutput:
		return "side_output"
	case UpdateSideOutput:
		return "update_side_output"
	}
	return "unset"
}

// Verdict is the judgement of one row against one window.
type Verdict uint8

// Verdicts. OnTime rows are applied; Late rows hit a fired window whose
// state is kept; Expired rows hit a window whose state is gone.
const (
	OnTime Verdict = iota
	Late
	Expired
)

// Judge classifies a row for window end `end` under watermark wm (the
// watermark in force when the row arrived) and allowed lateness.
// A window fires when wm >= end and its state is gone when
// wm >= end + lateness.
func Judge(end, lateness, wm int64) Verdict {
	switch {
	case wm < end:
		return OnTime
	case wm < end+lateness:
		return Late
	}
	return Expired
}

// Action says what to do with a row for one window given the policy.
type Action uint8

// Actions.
const (
	Apply   Action = iota // fold the row into the window
	Discard               // drop it (counted)
	Side                  // send it to the side table (once per row)
)

// Decide maps a verdict and a policy to an action.
func Decide(v Verdict, p Policy) Action {
	switch v {
	case OnTime:
		return Apply
	case Late:
		switch p {
		case Update, UpdateSideOutput:
			return Apply
		case SideOutput:
			return Side
		}
		return Discard
	}
	if p == SideOutput || p == UpdateSideOutput {
		return Side
	}
	return Discard
}

// Counters counts late rows by policy and reason. It is safe for
// concurrent use.
type Counters struct {
	mu sync.Mutex
	m  map[string]int64
}

// Add counts n late rows under policy p with reason ("late" or "expired").
func (c *Counters) Add(p Policy, reason string, n int64) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]int64{}
	}
	c.m[`late_events_total{policy="`+p.String()+`",reason="`+reason+`"}`] += n
	c.mu.Unlock()
}

// Snapshot returns the counters as sorted "name value" pairs.
func (c *Counters) Snapshot() [][2]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([][2]any, len(keys))
	for i, k := range keys {
		out[i] = [2]any{k, c.m[k]}
	}
	return out
}
