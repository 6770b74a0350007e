package datagen

import (
	"math"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// gen returns row n of table t from g.
func gen(g *Generator, t EventType, n int64) types.Row {
	row := make(types.Row, auctionWidth)
	switch t {
	case PersonEvent:
		g.Person(n, row)
		return row[:personWidth]
	case AuctionEvent:
		g.Auction(n, row)
		return row[:auctionWidth]
	}
	g.Bid(n, row)
	return row[:bidWidth]
}

func TestDeterministicPerSeed(t *testing.T) {
	a, b := NewGenerator(DefaultConfig()), NewGenerator(DefaultConfig())
	other := DefaultConfig()
	other.Seed = 7
	c := NewGenerator(other)
	differ := 0
	for n := range int64(5000) {
		typ := a.EventType(n)
		ra, rb, rc := gen(a, typ, n), gen(b, typ, n), gen(c, typ, n)
		if ra.String() != rb.String() {
			t.Fatalf("event %d differs for the same seed:\n%s\n%s", n, ra, rb)
		}
		if ra.String() != rc.String() {
			differ++
		}
	}
	if differ < 4900 {
		t.Errorf("only %d of 5000 events differ between seeds 42 and 7", differ)
	}
	// Reaching event n directly or after others gives the same row.
	g := NewGenerator(DefaultConfig())
	want := gen(g, BidEvent, 123456).String()
	for n := range int64(100) {
		gen(g, BidEvent, n)
	}
	if got := gen(g, BidEvent, 123456).String(); got != want {
		t.Errorf("event 123456 depends on history:\n%s\n%s", got, want)
	}
}

func TestEventTypeRatio(t *testing.T) {
	g := NewGenerator(DefaultConfig())
	counts := map[EventType]int{}
	for n := range int64(50_000) {
		counts[g.EventType(n)]++
	}
	if counts[PersonEvent] != 1000 || counts[AuctionEvent] != 3000 || counts[BidEvent] != 46000 {
		t.Errorf("counts = %v, want person 1000, auction 3000, bid 46000 (1:3:46)", counts)
	}
	for n, want := range map[int64]EventType{0: PersonEvent, 1: AuctionEvent, 3: AuctionEvent, 4: BidEvent, 49: BidEvent, 50: PersonEvent} {
		if got := g.EventType(n); got != want {
			t.Errorf("EventType(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestIDs(t *testing.T) {
	g := NewGenerator(DefaultConfig())
	wantPerson, wantAuction := int64(1000), int64(1000)
	for n := range int64(10_000) {
		switch g.EventType(n) {
		case PersonEvent:
			if id := gen(g, PersonEvent, n)[personID].I; id != wantPerson || id != n/50+1000 {
				t.Fatalf("person %d: id %d, want %d", n, id, wantPerson)
			}
			wantPerson++
		case AuctionEvent:
			if id := gen(g, AuctionEvent, n)[auctionID].I; id != wantAuction {
				t.Fatalf("auction %d: id %d, want %d", n, id, wantAuction)
			}
			wantAuction++
		}
	}
}

func TestHotKeys(t *testing.T) {
	g := NewGenerator(DefaultConfig())
	const events = 500_000
	var bids, hotAuction, hotBidder, hotChannel, auctions, hotSeller int
	categories := map[int64]int{}
	for n := int64(0); n < events; n++ {
		switch g.EventType(n) {
		case BidEvent:
			r := gen(g, BidEvent, n)
			bids++
			newestAuction := (n/50)*3 + 2
			if a := r[bidAuction].I - 1000; a == newestAuction/100*100 {
				hotAuction++
			} else if a < max(newestAuction-100, 0) || a > newestAuction+10 {
				t.Fatalf("bid %d: auction %d outside [newest-100, newest+10] (newest %d)", n, a, newestAuction)
			}
			if r[bidBidder].I-1000 == (n/50)/100*100+1 {
				hotBidder++
			}
			switch r[bidChannel].S {
			case "Google", "Facebook", "Baidu", "Apple":
				hotChannel++
			default:
				if !strings.HasPrefix(r[bidChannel].S, "channel-") {
					t.Fatalf("bid %d: channel %q", n, r[bidChannel].S)
				}
			}
			if !strings.HasPrefix(r[bidURL].S, "https://www.nexmark.com/") {
				t.Fatalf("bid %d: url %q", n, r[bidURL].S)
			}
			if p := r[bidPrice].I; p < 100 || p > 100_000_000 {
				t.Fatalf("bid %d: price %d outside [100, 1e8]", n, p)
			}
		case AuctionEvent:
			r := gen(g, AuctionEvent, n)
			auctions++
			if r[auctionSeller].I-1000 == (n/50)/100*100 {
				hotSeller++
			}
			categories[r[auctionCategory].I]++
			if r[auctionReserve].I <= r[auctionInitialBid].I {
				t.Fatalf("auction %d: reserve %d ≤ initial bid %d", n, r[auctionReserve].I, r[auctionInitialBid].I)
			}
		}
	}
	// The random picks sometimes land on the hot key too, so the observed
	// fractions sit slightly above the hot odds.
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 0.02 {
			t.Errorf("%s fraction = %.3f, want ≈ %.2f", name, got, want)
		}
	}
	near("hot auction", float64(hotAuction)/float64(bids), 0.5)
	near("hot bidder", float64(hotBidder)/float64(bids), 0.75)
	near("hot channel", float64(hotChannel)/float64(bids), 0.5)
	near("hot seller", float64(hotSeller)/float64(auctions), 0.75)
	if len(categories) != 5 {
		t.Errorf("categories = %v, want 10–14", categories)
	}
	for c, k := range categories {
		if c < 10 || c > 14 {
			t.Errorf("category %d outside 10–14", c)
		}
		near("category", float64(k)/float64(auctions), 0.2)
	}
}

func TestPersonFields(t *testing.T) {
	g := NewGenerator(DefaultConfig())
	states := map[string]bool{}
	for n := int64(0); n < 50*2000; n += 50 {
		r := gen(g, PersonEvent, n)
		states[r[personState].S] = true
		if !strings.Contains(r[personEmail].S, "@") || !strings.HasSuffix(r[personEmail].S, ".com") {
			t.Fatalf("person %d: email %q", n, r[personEmail].S)
		}
		if cc := r[personCard].S; len(cc) != 19 || strings.Count(cc, " ") != 3 {
			t.Fatalf("person %d: credit card %q", n, cc)
		}
		if !strings.Contains(r[personName].S, " ") || r[personCity].S == "" {
			t.Fatalf("person %d: name %q city %q", n, r[personName].S, r[personCity].S)
		}
	}
	if len(states) != 6 {
		t.Errorf("states = %v, want AZ CA ID OR WA WY", states)
	}
	for _, s := range usStates {
		if !states[s] {
			t.Errorf("state %s never generated", s)
		}
	}
}

// countedSize is a record's size in the reference's accounting, extra
// included.
func countedSize(t EventType, r types.Row) int {
	switch t {
	case PersonEvent:
		return 8 + len(r[personName].S) + len(r[personEmail].S) + len(r[personCard].S) +
			len(r[personCity].S) + len(r[personState].S) + len(r[personExtra].S)
	case AuctionEvent:
		return 8 + len(r[auctionItem].S) + len(r[auctionDesc].S) + 5*8 + len(r[auctionExtra].S)
	}
	return 4*8 + len(r[bidExtra].S)
}

func TestAverageRecordSizes(t *testing.T) {
	g := NewGenerator(DefaultConfig())
	total := map[EventType]int{}
	count := map[EventType]int{}
	for n := range int64(200_000) {
		typ := g.EventType(n)
		r := gen(g, typ, n)
		total[typ] += countedSize(typ, r)
		count[typ]++
	}
	for typ, want := range map[EventType]float64{PersonEvent: 200, AuctionEvent: 500, BidEvent: 100} {
		avg := float64(total[typ]) / float64(count[typ])
		if math.Abs(avg-want) > want*0.02 {
			t.Errorf("%v: average size %.1f, want ≈ %.0f", typ, avg, want)
		}
	}
}

func TestEventTime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Rate = 1000
	g := NewGenerator(cfg)
	for _, n := range []int64{0, 1, 49, 50, 1_000_000} {
		if got, want := g.EventTime(n), DefaultBaseTime+n*types.Millisecond; got != want {
			t.Errorf("rate 1000: EventTime(%d) = %d, want %d", n, got, want)
		}
	}
	if got := gen(g, BidEvent, 10)[bidDateTime]; got.K != types.Timestamp || got.I != DefaultBaseTime+10_000 {
		t.Errorf("bid 10 date_time = %v", got)
	}
	if s := types.FormatTimestamp(g.EventTime(0)); s != "2024-01-01 00:00:00" {
		t.Errorf("event 0 at %s", s)
	}
	// A rate that does not divide a second rounds each time down.
	cfg.Rate = 3
	g = NewGenerator(cfg)
	for n, want := range map[int64]int64{1: 333_333, 2: 666_666, 3: 1_000_000, 4: 1_333_333} {
		if got := g.EventTime(n) - DefaultBaseTime; got != want {
			t.Errorf("rate 3: offset of %d = %d, want %d", n, got, want)
		}
	}
	// The default rate spaces events 100 µs apart.
	g = NewGenerator(DefaultConfig())
	if d := g.EventTime(11) - g.EventTime(10); d != 100 {
		t.Errorf("default spacing %d µs, want 100", d)
	}
}

func TestAuctionExpires(t *testing.T) {
	g := NewGenerator(DefaultConfig())
	horizon := int64(1666) * 100 // 1666 events of 100 µs open 100 auctions
	for n := int64(1); n < 100_000; n += 50 {
		r := gen(g, AuctionEvent, n)
		dt, exp := r[auctionDateTime].I, r[auctionExpires].I
		if exp < dt+types.Millisecond || exp >= dt+types.Millisecond+2*horizon {
			t.Fatalf("auction %d expires %d after date_time, want [1 ms, 1 ms + %d µs)", n, exp-dt, 2*horizon)
		}
	}
}

func TestOutOfOrderness(t *testing.T) {
	cfg := DefaultConfig()
	cfg.OutOfOrderness = 2 * types.Second
	g, inOrder := NewGenerator(cfg), NewGenerator(DefaultConfig())
	var shifted, maxShift int64
	for n := range int64(20_000) {
		shift := g.InOrderTime(n) - g.EventTime(n)
		if shift < 0 || shift > 2*types.Second {
			t.Fatalf("event %d shifted by %d µs, want [0, 2 s]", n, shift)
		}
		if shift > 0 {
			shifted++
		}
		maxShift = max(maxShift, shift)
		a, b := gen(g, BidEvent, n), gen(inOrder, BidEvent, n)
		a[bidDateTime], b[bidDateTime] = types.Value{}, types.Value{}
		if a.String() != b.String() {
			t.Fatalf("out-of-orderness changed more than date_time of %d", n)
		}
	}
	if shifted < 19_900 || maxShift < types.Second {
		t.Errorf("%d of 20000 events shifted, max %d µs: the shift looks degenerate", shifted, maxShift)
	}
}

func TestPriceMatchesReferenceFormula(t *testing.T) {
	ref := func(u float64) int64 { return int64(math.Round(math.Pow(10, 6*u) * 100)) }
	r := eventRand{s: 1}
	us := []float64{0, 0.5, 1.0 / 3, 1 - 0x1p-53}
	for range 500_000 {
		us = append(us, r.float())
	}
	for _, u := range us {
		if got, want := priceAt(u), ref(u); got != want {
			t.Fatalf("priceAt(%v) = %d, want round(10^(6u)·100) = %d", u, got, want)
		}
	}
	if priceAt(0) != 100 || priceAt(1-0x1p-53) != 100_000_000 {
		t.Errorf("price range [%d, %d], want [100, 100000000]", priceAt(0), priceAt(1-0x1p-53))
	}
}

func TestGeneratorDoesNotAllocate(t *testing.T) {
	g := NewGenerator(DefaultConfig())
	row := make(types.Row, auctionWidth)
	n := int64(0)
	if a := testing.AllocsPerRun(1000, func() { g.Bid(n+4, row); n += 50 }); a != 0 {
		t.Errorf("Bid allocates %.1f times", a)
	}
	if a := testing.AllocsPerRun(1000, func() { g.Auction(n+1, row); n += 50 }); a != 0 {
		t.Errorf("Auction allocates %.1f times", a)
	}
	if a := testing.AllocsPerRun(1000, func() { g.Person(n, row); n += 50 }); a > 1 {
		t.Errorf("Person allocates %.1f times, want ≤ 1", a)
	}
}
