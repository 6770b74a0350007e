package exec

import (
	"errors"
	"fmt"
	"sync"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// Parallel runs a keyed operator as several instances, each owning the
// keys whose hash falls in its range and its own state. Rows are routed by
// the hash of their key columns and the instances process their share of
// a batch concurrently, one goroutine each (fork-join: the exchange holds
// at most one batch per instance, and Process returns only when every
// instance is done, so a checkpoint taken between calls is aligned across
// instances). Watermarks go to every instance; the instances' outputs
// merge, serialised by a mutex, into one stream whose watermark is the
// minimum of the instances'. Every key lives in exactly one instance and
// an instance emits a window's rows before the watermark that closes it,
// so the results do not depend on the number of instances.
type Parallel struct {
	inst []Operator
	keys [][]int // key columns per input port; nil: rows split evenly
}

// NewParallel wraps instances built by mk(i, out) where out is the merged
// output; keys gives each input port's key columns.
func NewParallel(n int, keys [][]int, out Output, mk func(i int, out Output) Operator) *Parallel {
	p := &Parallel{keys: keys}
	m := &merge{out: out, wms: make([]int64, n), last: types.MinTime}
	for i := range m.wms {
		m.wms[i] = types.MinTime
	}
	for i := 0; i < n; i++ {
		p.inst = append(p.inst, mk(i, Output{Op: &mergeIn{m: m, idx: i}}))
	}
	return p
}

// Owner returns the instance that owns a key (key values in key order).
func Owner(key types.Row, n int) int {
	if n <= 1 || len(key) == 0 {
		return 0 // Process routes rows of an unkeyed operator to instance 0
	}
	cols := make([]int, len(key))
	for i := range cols {
		cols[i] = i
	}
	return int(types.HashValues(key, cols) % uint64(n))
}

// ownsStored reports whether the instance keep belongs to (nil: the
// only one) keeps the entry an operator stored under key: id, then the
// entry's key values in key form, which Owner hashes alike.
func ownsStored(keep func(types.Row) bool, id string, key []byte) (bool, error) {
	return ownsKey(keep, id, key[len(id):])
}

// ownsKey reports whether the instance keep belongs to (nil: the only
// one) keeps the entry whose key values, in key form, are k; id names the
// operator in an error.
func ownsKey(keep func(types.Row) bool, id string, k []byte) (bool, error) {
	if keep == nil {
		return true, nil
	}
	vals, err := state.DecodeKeys(k)
	if err != nil {
		return false, fmt.Errorf("%s: %w", id, err)
	}
	return keep(vals), nil
}

// Process implements Operator. An unkeyed (stateless) phase gets
// contiguous equal shares of the batch as sub-slices, copying nothing; a
// keyed one gets each instance's rows in slices sized exactly, from a
// first pass that routes every row.
func (p *Parallel) Process(port int, b *Batch) error {
	parts := p.split(port, b)
	return p.each(func(i int, o Operator) error {
		if len(parts[i].Rows) == 0 {
			return nil
		}
		return o.Process(port, &parts[i])
	})
}

// split divides b among the instances.
func (p *Parallel) split(port int, b *Batch) []Batch {
	n := len(p.inst)
	parts := make([]Batch, n)
	if p.keys == nil {
		for k := range parts {
			lo, hi := shareOf(k, n, len(b.Rows)), shareOf(k+1, n, len(b.Rows))
			parts[k].Rows = b.Rows[lo:hi:hi]
			if b.Diffs != nil {
				parts[k].Diffs = b.Diffs[lo:hi:hi]
			}
			if b.WM != nil {
				parts[k].WM = b.WM[lo:hi:hi]
			}
		}
		return parts
	}
	cols := p.keys[port]
	if len(cols) == 0 {
		parts[0] = *b
		return parts
	}
	owner := make([]int32, len(b.Rows))
	counts := make([]int, n)
	for i, r := range b.Rows {
		k := int(types.HashValues(r, cols) % uint64(n))
		owner[i] = int32(k)
		counts[k]++
	}
	for k, c := range counts {
		parts[k].Rows = make([]types.Row, 0, c)
		if b.Diffs != nil {
			parts[k].Diffs = make([]int8, 0, c)
		}
		if b.WM != nil {
			parts[k].WM = make([]int64, 0, c)
		}
	}
	for i, r := range b.Rows {
		pb := &parts[owner[i]]
		pb.Rows = append(pb.Rows, r)
		if b.Diffs != nil {
			pb.Diffs = append(pb.Diffs, b.Diffs[i])
		}
		if b.WM != nil {
			pb.WM = append(pb.WM, b.WM[i])
		}
	}
	return parts
}

// shareOf is where instance k's contiguous share of m rows starts when n
// instances split them evenly: row i goes to the k with
// shareOf(k) <= i < shareOf(k+1), the same k as i*n/m.
func shareOf(k, n, m int) int {
	return (k*m + n - 1) / n
}

// each runs fn for every instance concurrently and waits for all; it
// returns the first error.
func (p *Parallel) each(fn func(i int, o Operator) error) error {
	errs := make([]error, len(p.inst))
	var wg sync.WaitGroup
	for i, o := range p.inst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(i, o)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Watermark implements Operator.
func (p *Parallel) Watermark(port int, wm int64) error {
	return p.each(func(_ int, o Operator) error { return o.Watermark(port, wm) })
}

// Tick implements Operator.
func (p *Parallel) Tick(now int64) error {
	return p.each(func(_ int, o Operator) error { return o.Tick(now) })
}

// Checkpoint implements Stateful.
func (p *Parallel) Checkpoint(w *state.Writer) error {
	for _, o := range p.inst {
		if s, ok := o.(Stateful); ok {
			if err := s.Checkpoint(w); err != nil {
				return err
			}
		}
	}
	return nil
}

// Restore implements Stateful. The instances restore concurrently: each
// reads the operator's key range keeping the keys it owns, and they share
// nothing but the store, which serves concurrent reads.
func (p *Parallel) Restore(s *state.Store) error {
	errs := make([]error, len(p.inst))
	var wg sync.WaitGroup
	for i, o := range p.inst {
		if st, ok := o.(Stateful); ok {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = st.Restore(s)
			}()
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// merge joins the instances' outputs; mu serialises them.
type merge struct {
	mu   sync.Mutex
	out  Output
	wms  []int64
	last int64
}

type mergeIn struct {
	m   *merge
	idx int
}

func (mi *mergeIn) Process(_ int, b *Batch) error {
	mi.m.mu.Lock()
	defer mi.m.mu.Unlock()
	return mi.m.out.Emit(b)
}

func (mi *mergeIn) Watermark(_ int, wm int64) error {
	m := mi.m
	m.mu.Lock()
	defer m.mu.Unlock()
	m.wms[mi.idx] = wm
	low := m.wms[0]
	for _, w := range m.wms[1:] {
		if w < low {
			low = w
		}
	}
	if low > m.last {
		m.last = low
		return m.out.EmitWatermark(low)
	}
	return nil
}

func (mi *mergeIn) Tick(int64) error { return nil }

// StateKeys implements stateSizer: the keys held in memory.
func (p *Parallel) StateKeys() int64 {
	var n int64
	for _, o := range p.inst {
		if s, ok := o.(stateSizer); ok {
			n += s.StateKeys()
		}
	}
	return n
}
