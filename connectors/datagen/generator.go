package datagen

import (
	"math/bits"

	"github.com/streamsql/streamsql/types"
)

// Facts of the reference Nexmark generator (see /work/shared/spec/nexmark.md).
const (
	proportionTotal   = 50 // n % 50: 0 person, 1–3 auction, 4–49 bid
	auctionProportion = 3

	firstPersonID  = 1000
	firstAuctionID = 1000
	firstCategory  = 10
	numCategories  = 5

	hotRound = 100 // hot sellers, auctions and bidders are ids rounded down to a multiple of 100

	numActivePeople     = 1000 // a random person is one of the last 1000 …
	personIDLead        = 10   // … or up to 10 beyond the newest
	numInFlightAuctions = 100  // a random auction is one of the last 100 …
	auctionIDLead       = 10   // … or up to 10 beyond the newest

	// hotSellerOdds: intn(4) > 0, 3 in 4 auctions, picks the hot seller.
	// (Bid's odds — hot auction 1 in 2, hot bidder 3 in 4, hot channel
	// 1 in 2 — are bit fields of one draw; see Bid.)
	hotSellerOdds = 4

	// Average record sizes the extra column pads to, in the reference's
	// accounting (8 bytes per number or timestamp plus the counted strings).
	avgPersonSize  = 200
	avgAuctionSize = 500
	avgBidSize     = 100

	// auctionHorizonEvents is how many events it takes to open
	// numInFlightAuctions auctions; an auction expires within twice that.
	auctionHorizonEvents = numInFlightAuctions * proportionTotal / auctionProportion
)

// DefaultRate is the default event rate: events per second of event time.
const DefaultRate = 10000

// DefaultBaseTime is the default event time of event 0: 2024-01-01 00:00:00
// UTC in microseconds since the epoch.
const DefaultBaseTime int64 = 1704067200 * types.Second

// DefaultSeed is the default seed.
const DefaultSeed = 42

// EventType is the kind of a Nexmark event, which is also the table it
// belongs to.
type EventType uint8

// The three Nexmark event types.
const (
	PersonEvent EventType = iota + 1
	AuctionEvent
	BidEvent
)

// String returns the table name of the event type.
func (t EventType) String() string {
	switch t {
	case PersonEvent:
		return "person"
	case AuctionEvent:
		return "auction"
	case BidEvent:
		return "bid"
	}
	return "unknown"
}

// eventTypeAt returns the type of event n (n ≥ 0).
func eventTypeAt(n int64) EventType {
	switch off := n % proportionTotal; {
	case off == 0:
		return PersonEvent
	case off <= auctionProportion:
		return AuctionEvent
	default:
		return BidEvent
	}
}

// Config configures a Generator. The zero value is valid: seed 0, the
// default rate, event 0 at the Unix epoch, events in order. DefaultConfig
// returns the connector's defaults.
type Config struct {
	// Seed selects the sequence: the same seed always gives the same events.
	Seed int64
	// Rate is the number of events per second of event time; it sets the
	// inter-event delay (1 s / Rate), not how fast events are generated.
	// Zero or negative means DefaultRate.
	Rate int64
	// BaseTime is the event time of event 0, microseconds since the epoch.
	BaseTime int64
	// OutOfOrderness bounds, in microseconds, how far back each event's
	// date_time is shifted (uniformly in [0, OutOfOrderness]). Zero keeps
	// events in order.
	OutOfOrderness int64
}

// DefaultConfig returns the connector's defaults: seed 42, 10,000 events
// per second of event time from 2024-01-01 00:00:00, in order.
func DefaultConfig() Config {
	return Config{Seed: DefaultSeed, Rate: DefaultRate, BaseTime: DefaultBaseTime}
}

// extraSize is the length distribution of one table's extra column:
// uniform in [lo, lo+span) as the reference's nextExtra.
type extraSize struct{ lo, span int }

// newExtraSize returns the distribution padding a record whose counted
// size is current to an average of avg bytes.
func newExtraSize(current, avg int) extraSize {
	if current > avg {
		return extraSize{}
	}
	want := avg - current
	delta := (want*2 + 5) / 10 // round(want · 0.2)
	if delta == 0 {
		return extraSize{}
	}
	return extraSize{lo: want - delta, span: 2 * delta}
}

// Generator computes Nexmark events. Event n is a pure function of the
// configuration and n: one generator can be shared by goroutines, and
// any event can be produced without the ones before it. Its methods are
// safe for concurrent use.
//
// Person, Auction and Bid write event n as a row of that table, in the
// column order of Schema; dst must be at least as long as that schema. They
// compute the row for n whatever EventType(n) is, so use EventType (or
// Event) to follow the real sequence.
type Generator struct {
	cfg      Config
	seed     uint64 // mixed seed of the field draws
	oooSeed  uint64 // mixed seed of the out-of-orderness draws
	delay    int64  // inter-event delay in µs when exact, else 0
	rate     uint64
	horizon  int64 // µs spanned by auctionHorizonEvents events
	bidExtra extraSize
	t        *tableSet
}

// NewGenerator returns a generator for cfg.
func NewGenerator(cfg Config) *Generator {
	if cfg.Rate <= 0 {
		cfg.Rate = DefaultRate
	}
	if cfg.OutOfOrderness < 0 {
		cfg.OutOfOrderness = 0
	}
	g := &Generator{
		cfg:      cfg,
		seed:     mix64(uint64(cfg.Seed)),
		oooSeed:  mix64(uint64(cfg.Seed) ^ 0x6f6f6f), // "ooo"
		rate:     uint64(cfg.Rate),
		bidExtra: newExtraSize(8+8+8+8, avgBidSize),
		t:        sharedTables(),
	}
	if types.Second%cfg.Rate == 0 {
		g.delay = types.Second / cfg.Rate
	}
	g.horizon = g.offset(auctionHorizonEvents)
	return g
}

// Config returns the generator's configuration, defaults filled in.
func (g *Generator) Config() Config { return g.cfg }

// EventType returns the type of event n: n % 50 == 0 is a person, 1–3 an
// auction, 4–49 a bid. n must be ≥ 0.
func (g *Generator) EventType(n int64) EventType { return eventTypeAt(n) }

// Event writes event n into dst as a row of its own table and returns the
// table. dst must have room for the widest table (10 columns, auction).
func (g *Generator) Event(n int64, dst types.Row) EventType {
	t := eventTypeAt(n)
	switch t {
	case PersonEvent:
		g.Person(n, dst)
	case AuctionEvent:
		g.Auction(n, dst)
	default:
		g.Bid(n, dst)
	}
	return t
}

// offset returns n · (1 s / rate) in microseconds, rounded down.
func (g *Generator) offset(n int64) int64 {
	if g.delay > 0 {
		return n * g.delay
	}
	hi, lo := bits.Mul64(uint64(n), uint64(types.Second))
	q, _ := bits.Div64(hi%g.rate, lo, g.rate) // hi%rate: avoid the overflow panic
	return int64(q)
}

// InOrderTime returns the event time of n before any out-of-orderness:
// base_time + n · inter_event_delay, in microseconds.
func (g *Generator) InOrderTime(n int64) int64 { return g.cfg.BaseTime + g.offset(n) }

// EventTime returns the date_time of event n: InOrderTime(n) shifted back
// by a pseudo-random amount in [0, OutOfOrderness].
func (g *Generator) EventTime(n int64) int64 {
	t := g.InOrderTime(n)
	if g.cfg.OutOfOrderness > 0 {
		r := newEventRand(g.oooSeed, n)
		t -= int64(r.intn(uint64(g.cfg.OutOfOrderness) + 1))
	}
	return t
}

// lastPerson returns the 0-based id of the newest person at event n.
func lastPerson(n int64) int64 { return n / proportionTotal }

// lastAuction returns the 0-based id of the newest auction at event n:
// (n / 50) · 3 plus the auctions before n in its epoch, minus one (an
// auction event's own id; for a bid, the epoch's last auction).
func lastAuction(n int64) int64 {
	epoch, off := n/proportionTotal, n%proportionTotal
	switch {
	case off == 0:
		return epoch*auctionProportion - 1
	case off <= auctionProportion:
		return epoch*auctionProportion + off - 1
	default:
		return epoch*auctionProportion + auctionProportion - 1
	}
}

// activePerson returns a random recent 0-based person id at event n: one
// of the last 1000 persons or up to 10 beyond the newest.
func (r *eventRand) activePerson(n int64) int64 {
	num := lastPerson(n) + 1
	active := min(num, numActivePeople)
	return num - active + int64(r.intn(uint64(active+personIDLead)))
}

// recentAuction returns a random 0-based auction id at event n, uniform in
// [newest − 100, newest + 10] (clamped at 0).
func (r *eventRand) recentAuction(n int64) int64 {
	last := lastAuction(n)
	lo := max(last-numInFlightAuctions, 0)
	return lo + int64(r.intn(uint64(last-lo+1+auctionIDLead)))
}

// extra returns a random lowercase string whose length follows e. One
// draw gives both the length (high 32 bits) and where the string is cut
// from the pool (low 32 bits).
func (g *Generator) extra(r *eventRand, e extraSize) string {
	if e.span == 0 {
		return ""
	}
	x := r.next()
	n := e.lo + int((x>>32)*uint64(e.span)>>32)
	off := int((x & 0xFFFFFFFF) * uint64(lettersLen-n+1) >> 32)
	return g.t.letters[off : off+n]
}

// word returns the reference's nextString(maxLen): 3 to maxLen-1 characters
// of letters and spaces, trimmed, cut from the shared text pool.
func (g *Generator) word(r *eventRand, maxLen int) string {
	n := minStringLen + int(r.intn(uint64(maxLen-minStringLen)))
	off := int(r.intn(uint64(textLen - n + 1)))
	return trimSpaces(g.t.text[off : off+n])
}
