package exec

import (
	"cmp"
	"container/heap"
	"slices"
)

// bucketShift sets the width of a timerBuckets bucket: 2^20 µs, about a
// second of event time.
const bucketShift = 20

// timerBuckets is the memory side of a timerQueue: entries bucketed by
// their time >> bucketShift, with only the bucket numbers in a heap. A
// push is an append to its bucket (no heap walk per entry, which for a
// join holding a row per key was one of the costs of every row); the
// watermark takes whole buckets it passed, and sorts the one it is in
// once, then takes from its front. Entries come out in time order.
type timerBuckets struct {
	ids     timeHeap // the bucket numbers in buckets
	buckets map[int64]*timerBucket
	n       int // entries held
}

// timerBucket is one bucket's entries; items[:head] were taken. sorted
// says items[head:] are in time order.
type timerBucket struct {
	items  []expiryItem
	head   int
	sorted bool
}

// Len returns how many entries the buckets hold.
func (t *timerBuckets) Len() int { return t.n }

// push adds it.
func (t *timerBuckets) push(it expiryItem) {
	if t.buckets == nil {
		t.buckets = map[int64]*timerBucket{}
	}
	id := it.at >> bucketShift
	b := t.buckets[id]
	if b == nil {
		b = &timerBucket{sorted: true}
		t.buckets[id] = b
		heap.Push(&t.ids, id)
	}
	if n := len(b.items); n > b.head && it.at < b.items[n-1].at {
		b.sorted = false
	}
	b.items = append(b.items, it)
	t.n++
}

// due removes and appends to items the entries at or before upTo,
// ordered by time unless anyOrder is set (a purge that emits nothing does
// not care about the order its keys come in): then the bucket the
// watermark is in is partitioned, not sorted, and a bucket it passed
// whole is taken as it was filled.
func (t *timerBuckets) due(upTo int64, items []expiryItem, anyOrder bool) []expiryItem {
	last := upTo >> bucketShift
	for len(t.ids) > 0 && t.ids[0] <= last {
		id := t.ids[0]
		b := t.buckets[id]
		var i int
		if anyOrder {
			i = b.partition(upTo)
		} else {
			b.sort()
			i = b.head
			for i < len(b.items) && b.items[i].at <= upTo {
				i++
			}
		}
		items = append(items, b.items[b.head:i]...)
		t.n -= i - b.head
		clear(b.items[b.head:i]) // drop the keys' references
		b.head = i
		if b.head < len(b.items) {
			break // the bucket upTo is in keeps later entries
		}
		heap.Pop(&t.ids)
		delete(t.buckets, id)
	}
	return items
}

// partition moves the bucket's entries at or before upTo to the front of
// items[head:] and returns where they end; the bucket is no longer
// sorted when it moved any.
func (b *timerBucket) partition(upTo int64) int {
	i := b.head
	for k := b.head; k < len(b.items); k++ {
		if b.items[k].at > upTo {
			continue
		}
		if k != i {
			b.items[i], b.items[k] = b.items[k], b.items[i]
			b.sorted = false
		}
		i++
	}
	return i
}

// sort puts the bucket's entries in time order, compacting out the taken
// ones.
func (b *timerBucket) sort() {
	if b.sorted {
		return
	}
	n := copy(b.items, b.items[b.head:])
	clear(b.items[n:])
	b.items, b.head = b.items[:n], 0
	slices.SortStableFunc(b.items, func(x, y expiryItem) int { return cmp.Compare(x.at, y.at) })
	b.sorted = true
}

// filter keeps the entries keep accepts.
func (t *timerBuckets) filter(keep func(it expiryItem) bool) {
	t.n = 0
	t.ids = t.ids[:0]
	for id, b := range t.buckets {
		kept := slices.DeleteFunc(b.items[b.head:], func(it expiryItem) bool { return !keep(it) })
		n := copy(b.items, kept)
		clear(b.items[n:])
		b.items, b.head = b.items[:n], 0
		if n == 0 {
			delete(t.buckets, id)
			continue
		}
		t.n += n
		t.ids = append(t.ids, id)
	}
	heap.Init(&t.ids)
}
