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
	m  map[LateKey]int64
}

// LateKey names one late-row counter: the policy's label and the reason
// ("late" or "expired").
type LateKey struct{ Policy, Reason string }

// Add counts n late rows under policy p with reason ("late" or "expired").
func (c *Counters) Add(p Policy, reason string, n int64) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[LateKey]int64{}
	}
	c.m[LateKey{p.String(), reason}] += n
	c.mu.Unlock()
}

// Totals returns a copy of the counters.
func (c *Counters) Totals() map[LateKey]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[LateKey]int64, len(c.m))
	for k, n := range c.m {
		out[k] = n
	}
	return out
}

// Restore sets the counters to totals (a checkpoint's), replacing what
// they held.
func (c *Counters) Restore(totals map[LateKey]int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = make(map[LateKey]int64, len(totals))
	for k, n := range totals {
		c.m[k] = n
	}
}

// Name is the counter's line in SHOW METRICS, e.g.
// late_events_total{policy="drop",reason="late"}.
func (k LateKey) Name() string {
	return `late_events_total{policy="` + k.Policy + `",reason="` + k.Reason + `"}`
}

// Snapshot returns the counters as "name value" pairs sorted by name.
func (c *Counters) Snapshot() [][2]any {
	totals := c.Totals()
	keys := make([]LateKey, 0, len(totals))
	for k := range totals {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Name() < keys[j].Name() })
	out := make([][2]any, len(keys))
	for i, k := range keys {
		out[i] = [2]any{k.Name(), totals[k]}
	}
	return out
}
