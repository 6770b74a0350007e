package datagen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Batch sizes: Read uses defaultBatch when asked for max ≤ 0 and never
// returns more than maxBatch rows (a batch is one slab of about 300 bytes
// per row, so this bounds it near 20 MB).
const (
	defaultBatch = 1024
	maxBatch     = 1 << 16
)

// maxThrottleWait bounds how long a throttled Read waits for the next
// event before returning an empty batch.
const maxThrottleWait = 50 * time.Millisecond

// errClosed is returned by Read after Close.
var errClosed = errors.New("datagen: source is closed")

// Factory returns the datagen source factory: a deterministic Nexmark
// generator producing one of the person, auction and bid tables.
func Factory() connectors.SourceFactory {
	return connectors.SourceFactory{
		Name: "datagen",
		Doc: "Deterministic Nexmark generator. One event sequence n = 0, 1, 2, … " +
			"(n % 50: 0 person, 1–3 auction, 4–49 bid) is computed from (seed, n); each " +
			"source produces one table of it. Offsets are event numbers, so a restart " +
			"resumes exactly and sources over the same seed and options see one sequence.",
		Options: append([]connectors.OptionSpec(nil), optionSpecs...),
		Typed:   true,
		New:     func(_ context.Context, spec connectors.SourceSpec) (connectors.Source, error) { return newSource(spec) },
	}
}

// source is the datagen connectors.Source. It is not safe for concurrent
// use: the engine reads a source from one goroutine.
type source struct {
	gen      *Generator
	table    EventType
	write    func(n int64, dst types.Row) // Person, Auction or Bid of gen
	cols     []int                        // canonical position of each declared column
	direct   bool                         // cols is the identity: write straight into the row
	scratch  types.Row                    // canonical row when !direct
	events   int64                        // sequence length; 0: unbounded
	throttle int64                        // sequence events per wall second; 0: none
	parts    []cursor                     // next matching event per partition
	pos      []int64                      // offset per partition: next event number to consider
	opened   []int64                      // pos at Open, for Progress
	next     int                          // partition the next Read tries first
	start    time.Time                    // wall time of Open, for throttling
	startN   int64                        // smallest offset at Open, for throttling
	closed   bool

	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration)
}

// newSource validates spec and returns a source positioned at the start.
func newSource(spec connectors.SourceSpec) (*source, error) {
	st, err := parseOptions(spec.Options)
	if err != nil {
		return nil, err
	}
	cols, err := projection(st.table, spec.Schema)
	if err != nil {
		return nil, err
	}
	g := NewGenerator(st.cfg)
	s := &source{
		gen:      g,
		table:    st.table,
		cols:     cols,
		events:   st.events,
		throttle: st.throttle,
		parts:    make([]cursor, st.partitions),
		pos:      make([]int64, st.partitions),
		now:      time.Now,
		sleep:    sleepCtx,
	}
	width := len(st.table.Schema())
	s.direct = isIdentity(cols, width)
	s.scratch = make(types.Row, width)
	switch st.table {
	case PersonEvent:
		s.write = g.Person
	case AuctionEvent:
		s.write = g.Auction
	default:
		s.write = g.Bid
	}
	for p := range s.parts {
		s.parts[p] = newCursor(st.table, p, st.partitions)
	}
	if err := s.Open(context.Background(), nil); err != nil {
		return nil, err
	}
	return s, nil
}

// Partitions returns the partitions option.
func (s *source) Partitions() int { return len(s.parts) }

// Open positions partition p at event offsets[p] (nil: at event p). An
// offset is an event number of the whole sequence; one that is not
// ≡ p (mod partitions) is rounded up to the partition's next event.
func (s *source) Open(_ context.Context, offsets []int64) error {
	if offsets != nil && len(offsets) != len(s.parts) {
		return sqlerr.New(sqlerr.InvalidParameter, "datagen: %d offsets for %d partitions", len(offsets), len(s.parts))
	}
	parts := int64(len(s.parts))
	s.startN = math.MaxInt64
	for p := range s.parts {
		n := int64(p)
		if offsets != nil {
			n = offsets[p]
		}
		if n < 0 {
			return sqlerr.New(sqlerr.InvalidParameter, "datagen: negative offset %d for partition %d", n, p)
		}
		n += ((int64(p)-n%parts)%parts + parts) % parts // round up to ≡ p
		s.pos[p] = n
		s.parts[p].seek(n)
		s.startN = min(s.startN, n)
	}
	s.opened = append(s.opened[:0], s.pos...)
	s.next, s.closed = 0, false
	s.start = s.now()
	return nil
}

// Read returns up to maxRows rows (≤ 0: 1024; at most 65536) from the next
// partition, in round-robin order, that has an event due. It returns
// ErrEndOfInput once every partition has reached the events bound, and an
// empty batch when throttled and nothing is due yet (after waiting up to
// 50 ms for it).
func (s *source) Read(ctx context.Context, maxRows int) (connectors.Batch, error) {
	if s.closed {
		return connectors.Batch{}, errClosed
	}
	if err := ctx.Err(); err != nil {
		return connectors.Batch{}, err
	}
	if maxRows <= 0 {
		maxRows = defaultBatch
	}
	maxRows = min(maxRows, maxBatch)
	limit := s.limit()
	for i := range s.parts {
		p := (s.next + i) % len(s.parts)
		if s.parts[p].peek() < limit {
			s.next = (p + 1) % len(s.parts)
			return s.fill(p, maxRows, limit), nil
		}
	}
	if s.exhausted() {
		return connectors.Batch{}, connectors.ErrEndOfInput
	}
	s.waitForNext(ctx)
	p := s.next
	s.next = (p + 1) % len(s.parts)
	return connectors.Batch{Partition: p, Next: s.pos[p], Ingested: s.now().UnixMicro()}, ctx.Err()
}

// limit returns the first event number not yet producible: the events
// bound, or under a throttle the sequence position wall time has reached.
func (s *source) limit() int64 {
	lim := int64(math.MaxInt64)
	if s.events > 0 {
		lim = s.events
	}
	if s.throttle > 0 {
		due := float64(s.now().Sub(s.start)) * float64(s.throttle) / float64(time.Second)
		if due < float64(lim-s.startN) {
			lim = min(lim, s.startN+int64(due)+1)
		}
	}
	return lim
}

// exhausted reports whether a bounded source has no event left in any
// partition.
func (s *source) exhausted() bool {
	if s.events <= 0 {
		return false
	}
	for p := range s.parts {
		if s.parts[p].peek() < s.events {
			return false
		}
	}
	return true
}

// waitForNext sleeps until the earliest pending event is due under the
// throttle, at most maxThrottleWait.
func (s *source) waitForNext(ctx context.Context) {
	if s.throttle <= 0 {
		return
	}
	first := int64(math.MaxInt64)
	for p := range s.parts {
		first = min(first, s.parts[p].peek())
	}
	due := s.start.Add(time.Duration(float64(first-s.startN) / float64(s.throttle) * float64(time.Second)))
	if d := min(due.Sub(s.now()), maxThrottleWait); d > 0 {
		s.sleep(ctx, d)
	}
}

// fill generates up to maxRows rows of partition p with event numbers below
// limit. The rows are carved from one slab so a batch costs two
// allocations however many rows it holds.
func (s *source) fill(p, maxRows int, limit int64) connectors.Batch {
	c := &s.parts[p]
	k, probe := 0, *c
	for k < maxRows && probe.peek() < limit {
		probe.advance()
		k++
	}
	w := len(s.cols)
	slab := make([]types.Value, k*w)
	rows := make([]types.Row, k)
	var last int64
	for i := range rows {
		n := c.peek()
		c.advance()
		row := slab[i*w : (i+1)*w : (i+1)*w]
		if s.direct {
			s.write(n, row)
		} else {
			s.write(n, s.scratch)
			for j, ci := range s.cols {
				row[j] = s.scratch[ci]
			}
		}
		rows[i] = row
		last = n
	}
	s.pos[p] = last + int64(len(s.parts))
	return connectors.Batch{Partition: p, Rows: rows, Next: s.pos[p], Ingested: s.now().UnixMicro()}
}

// Close releases the source; Read fails afterwards until the next Open.
func (s *source) Close() error {
	s.closed = true
	return nil
}

// String describes the source for logs.
func (s *source) String() string {
	return fmt.Sprintf("datagen(table=%s, partitions=%d, events=%d)", s.table, len(s.parts), s.events)
}

// sleepCtx sleeps for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
