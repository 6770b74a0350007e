package datagen

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// open returns a datagen source with opts (and the declared schema, if any).
func open(t *testing.T, schema types.Schema, opts map[string]string) *source {
	t.Helper()
	src, err := Factory().New(context.Background(), connectors.SourceSpec{Name: "s", Schema: schema, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return src.(*source)
}

// drain reads src to ErrEndOfInput and returns the rows per partition.
func drain(t *testing.T, src connectors.Source, maxRows int) map[int][]string {
	t.Helper()
	out := map[int][]string{}
	for i := 0; ; i++ {
		b, err := src.Read(context.Background(), maxRows)
		if errors.Is(err, connectors.ErrEndOfInput) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if i > 1_000_000 {
			t.Fatal("source never ended")
		}
		for _, r := range b.Rows {
			out[b.Partition] = append(out[b.Partition], r.String())
		}
	}
}

func TestFactory(t *testing.T) {
	f := Factory()
	if f.Name != "datagen" || f.Doc == "" {
		t.Errorf("factory %q doc %q", f.Name, f.Doc)
	}
	var names []string
	for _, o := range f.Options {
		names = append(names, o.Name)
		if o.Type == "" || o.Doc == "" || o.Example == "" {
			t.Errorf("option %s is not fully described: %+v", o.Name, o)
		}
	}
	want := "table seed events rate throttle base_time out_of_orderness partitions"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("options %q, want %q", got, want)
	}
	// Every default parses.
	if _, err := parseOptions(map[string]string{"table": "bid"}); err != nil {
		t.Errorf("defaults do not parse: %v", err)
	}
}

func TestBoundedCountsAndEndOfInput(t *testing.T) {
	for table, want := range map[string]int{"person": 200, "auction": 600, "bid": 9200} {
		src := open(t, nil, map[string]string{"table": table, "events": "10000"})
		rows := drain(t, src, 333)
		if got := len(rows[0]); got != want {
			t.Errorf("%s: %d rows of 10000 events, want %d", table, got, want)
		}
		for range 3 {
			if _, err := src.Read(context.Background(), 10); !errors.Is(err, connectors.ErrEndOfInput) {
				t.Errorf("%s: Read after the end: %v, want ErrEndOfInput", table, err)
			}
		}
	}
}

func TestRowsMatchGenerator(t *testing.T) {
	src := open(t, nil, map[string]string{"table": "bid", "events": "1000", "seed": "9"})
	cfg := DefaultConfig()
	cfg.Seed = 9
	g := NewGenerator(cfg)
	var want []string
	for n := range int64(1000) {
		if g.EventType(n) == BidEvent {
			want = append(want, gen(g, BidEvent, n).String())
		}
	}
	got := drain(t, src, 100)[0]
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("source rows differ from the generator's bids")
	}
}

func TestPartitionsSplitTheSequence(t *testing.T) {
	whole := drain(t, open(t, nil, map[string]string{"table": "bid", "events": "20000"}), 1000)[0]
	src := open(t, nil, map[string]string{"table": "bid", "events": "20000", "partitions": "4"})
	parts := drain(t, src, 300)
	g := NewGenerator(DefaultConfig())
	var union []string
	for p := range 4 {
		var want []string
		for n := int64(p); n < 20000; n += 4 {
			if g.EventType(n) == BidEvent {
				want = append(want, gen(g, BidEvent, n).String())
			}
		}
		if strings.Join(parts[p], "\n") != strings.Join(want, "\n") {
			t.Errorf("partition %d: %d rows, not the bids n %% 4 == %d (%d)", p, len(parts[p]), p, len(want))
		}
		union = append(union, parts[p]...)
	}
	sort.Strings(union)
	sorted := append([]string(nil), whole...)
	sort.Strings(sorted)
	if strings.Join(union, "\n") != strings.Join(sorted, "\n") {
		t.Errorf("partitions together: %d rows, want the %d of one partition", len(union), len(whole))
	}
}

func TestEmptyPartition(t *testing.T) {
	// With 50 partitions, partition 0 holds only persons.
	src := open(t, nil, map[string]string{"table": "bid", "events": "5000", "partitions": "50"})
	parts := drain(t, src, 1000)
	if len(parts[0]) != 0 || len(parts[1]) != 0 || len(parts[3]) != 0 || len(parts[4]) != 100 {
		t.Errorf("bids per partition 0/1/3/4 = %d/%d/%d/%d, want 0/0/0/100",
			len(parts[0]), len(parts[1]), len(parts[3]), len(parts[4]))
	}
	person := drain(t, open(t, nil, map[string]string{"table": "person", "events": "5000", "partitions": "50"}), 1000)
	if len(person) != 1 || len(person[0]) != 100 {
		t.Errorf("persons by partition: %d partitions, want only partition 0 with 100", len(person))
	}
}

func TestResumeFromOffsets(t *testing.T) {
	for _, table := range []string{"person", "auction", "bid"} {
		opts := map[string]string{"table": table, "events": "30000", "partitions": "3"}
		whole := drain(t, open(t, nil, opts), 70)
		src := open(t, nil, opts)
		offsets := make([]int64, 3)
		seen := map[int][]string{}
		for range 7 { // read part way, remembering the checkpoint offsets
			b, err := src.Read(context.Background(), 70)
			if err != nil {
				t.Fatal(err)
			}
			offsets[b.Partition] = b.Next
			for _, r := range b.Rows {
				seen[b.Partition] = append(seen[b.Partition], r.String())
			}
		}
		for p := range offsets {
			if offsets[p] == 0 {
				offsets[p] = int64(p) // never read: its initial offset
			}
		}
		restarted := open(t, nil, opts)
		if err := restarted.Open(context.Background(), offsets); err != nil {
			t.Fatal(err)
		}
		rest := drain(t, restarted, 70)
		for p := range 3 {
			got := append(append([]string(nil), seen[p]...), rest[p]...)
			if strings.Join(got, "\n") != strings.Join(whole[p], "\n") {
				t.Errorf("%s partition %d: read-through then resume at %d gives %d rows, want %d",
					table, p, offsets[p], len(got), len(whole[p]))
			}
		}
	}
}

func TestOpenAtAnyOffset(t *testing.T) {
	// An offset in the middle of a run of other events, or not ≡ p, rounds
	// up to the partition's next event of the table.
	src := open(t, nil, map[string]string{"table": "auction", "events": "200"})
	if err := src.Open(context.Background(), []int64{52}); err != nil {
		t.Fatal(err)
	}
	b, err := src.Read(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for _, r := range b.Rows {
		ids = append(ids, r[auctionID].I)
	}
	// Events 52, 53, 101–103, 151–153: auctions 1004, 1005, 1006–1011.
	if got, want := sprint(ids), "1004 1005 1006 1007 1008 1009 1010 1011"; got != want {
		t.Errorf("auction ids from offset 52: %s, want %s", got, want)
	}
	if b.Next != 154 {
		t.Errorf("Next = %d, want 154 (after event 153)", b.Next)
	}
	if err := src.Open(context.Background(), []int64{1, 2}); err == nil {
		t.Error("Open with 2 offsets for 1 partition succeeded")
	}
	if err := src.Open(context.Background(), []int64{-1}); err == nil {
		t.Error("Open with a negative offset succeeded")
	}
}

func sprint(ids []int64) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(types.IntValue(id).String())
	}
	return b.String()
}

func TestDeclaredSchemaOrder(t *testing.T) {
	declared := types.Schema{
		{Name: "date_time", Type: types.Timestamp},
		{Name: "price", Type: types.Int},
		{Name: "AUCTION", Type: types.Int},
	}
	src := open(t, declared, map[string]string{"table": "bid", "events": "100"})
	g := NewGenerator(DefaultConfig())
	b, err := src.Read(context.Background(), 5)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range b.Rows {
		full := gen(g, BidEvent, int64(4+i))
		if len(r) != 3 || r[0] != full[bidDateTime] || r[1] != full[bidPrice] || r[2] != full[bidAuction] {
			t.Errorf("row %d = %v, want date_time, price, auction of %v", i, r, full)
		}
	}
	for _, c := range []struct {
		col  types.Column
		code string
	}{
		{types.Column{Name: "prices", Type: types.Int}, sqlerr.UndefinedColumn},
		{types.Column{Name: "price", Type: types.String}, sqlerr.DatatypeMismatch},
	} {
		_, err := Factory().New(context.Background(), connectors.SourceSpec{Schema: types.Schema{c.col}, Options: map[string]string{"table": "bid"}})
		if sqlerr.Code(err) != c.code {
			t.Errorf("declared %v: error %v (code %s), want code %s", c.col, err, sqlerr.Code(err), c.code)
		}
	}
	_, err = Factory().New(context.Background(), connectors.SourceSpec{Schema: types.Schema{{Name: "prices", Type: types.Int}}, Options: map[string]string{"table": "bid"}})
	if !strings.Contains(err.Error(), `did you mean price?`) {
		t.Errorf("unknown column error %q has no suggestion", err)
	}
}

func TestBatchesDoNotShareRows(t *testing.T) {
	src := open(t, nil, map[string]string{"table": "bid"})
	a, _ := src.Read(context.Background(), 10)
	keep := a.Rows[9].String()
	b, _ := src.Read(context.Background(), 10)
	b.Rows[0][0] = types.IntValue(-1)
	if a.Rows[9].String() != keep {
		t.Error("a later batch overwrote an earlier batch's row")
	}
	if cap(a.Rows[0]) != len(a.Rows[0]) {
		t.Errorf("row capacity %d > length %d: appending would clobber the next row", cap(a.Rows[0]), len(a.Rows[0]))
	}
}

// fakeClock is a manual clock for throttling tests: time moves only when
// the test moves it; sleeps are recorded.
type fakeClock struct {
	t      time.Time
	sleeps []time.Duration
}

func (c *fakeClock) now() time.Time                           { return c.t }
func (c *fakeClock) sleep(_ context.Context, d time.Duration) { c.sleeps = append(c.sleeps, d) }

func TestThrottle(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	src := open(t, nil, map[string]string{"table": "bid", "throttle": "1000", "partitions": "2"})
	src.now, src.sleep = clk.now, clk.sleep
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	start := clk.t
	read := func() (rows int) {
		for range 10 {
			b, err := src.Read(context.Background(), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			rows += len(b.Rows)
		}
		return rows
	}
	// At the start only event 0 (a person) is due: no bid, and Read waits
	// for the first bid (event 4, due 4 ms later).
	if got := read(); got != 0 {
		t.Errorf("%d bids at time 0", got)
	}
	if len(clk.sleeps) == 0 || clk.sleeps[0] != 4*time.Millisecond {
		t.Errorf("waits %v, want 4ms first", clk.sleeps)
	}
	// After 1 s at 1000 events/s, events 0..1000 are due: 20 epochs of 46 bids.
	clk.t = start.Add(time.Second)
	total := read()
	if total != 920 {
		t.Errorf("%d bids after 1 s at 1000 events/s, want 920", total)
	}
	clk.t = start.Add(10 * time.Second)
	if total += read(); total != 9200 {
		t.Errorf("%d bids after 10 s at 1000 events/s, want 9200", total)
	}
	for _, d := range clk.sleeps {
		if d <= 0 || d > maxThrottleWait {
			t.Errorf("waited %v, want (0, %v]", d, maxThrottleWait)
		}
	}
}

func TestReadHonoursContextAndClose(t *testing.T) {
	src := open(t, nil, map[string]string{"table": "bid"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Read(ctx, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a cancelled context: %v", err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Read(context.Background(), 10); err == nil {
		t.Error("Read after Close succeeded")
	}
}
