package exec

import (
	"container/heap"
	"slices"
)

// windowTimers is when the windows of a WindowAggregate that are in
// memory next need the watermark (their close, then their drop), bucketed
// by that time: TUMBLE and HOP windows share their ends, so a window
// costs an append to its time's bucket, and only the distinct times are
// in a heap. A window may be in several buckets (covered again after a
// visit, a session whose end grew); its visit finds nothing due the
// second time. Stored TUMBLE and HOP windows need no entry: their keys
// order by end (window_store.go); stored sessions have stored timers
// (WindowAggregate.sessionTimers, timers.go).
type windowTimers struct {
	times   timeHeap
	buckets map[int64][]*winEntry
	n       int // entries in the buckets
}

// windowDue is a window a watermark reached: e when it was in memory when
// covered, else only the key of a stored window.
type windowDue struct {
	at  int64
	e   *winEntry
	key string
}

// push covers window e at time at.
func (t *windowTimers) push(at int64, e *winEntry) {
	if t.buckets == nil {
		t.buckets = map[int64][]*winEntry{}
	}
	b, ok := t.buckets[at]
	if !ok {
		heap.Push(&t.times, at)
	}
	t.buckets[at] = append(b, e)
	t.n++
}

// due removes and appends to items, by time, the windows covered at or
// before upTo.
func (t *windowTimers) due(upTo int64, items []windowDue) []windowDue {
	for len(t.times) > 0 && t.times[0] <= upTo {
		at := heap.Pop(&t.times).(int64)
		for _, e := range t.buckets[at] {
			items = append(items, windowDue{at: at, e: e})
		}
		t.n -= len(t.buckets[at])
		delete(t.buckets, at)
	}
	return items
}

// Len returns how many entries the buckets hold.
func (t *windowTimers) Len() int { return t.n }

// prune drops the entries of windows no longer in memory, after a
// checkpoint whose stored windows now cover them.
func (t *windowTimers) prune(inMemory func(e *winEntry) bool) {
	t.n = 0
	for at, b := range t.buckets {
		b = slices.DeleteFunc(b, func(e *winEntry) bool { return !inMemory(e) })
		t.n += len(b)
		if len(b) > 0 {
			t.buckets[at] = b
			continue
		}
		delete(t.buckets, at)
	}
	t.times = t.times[:0]
	for at := range t.buckets {
		t.times = append(t.times, at)
	}
	heap.Init(&t.times)
}

// timeHeap is a min-heap of times.
type timeHeap []int64

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(a, b int) bool { return h[a] < h[b] }
func (h timeHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
