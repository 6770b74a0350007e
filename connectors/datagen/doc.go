// Package datagen is the Nexmark generator of streamsql: a deterministic,
// allocation-free source of the person, auction and bid tables, usable as
// the "datagen" connector (Factory) or directly (NewGenerator).
//
// # The event sequence
//
// There is one sequence of events n = 0, 1, 2, …; n % 50 decides the type
// and n alone decides the event time:
//
//	n:          0       1   2   3     4  5  …  49     50      51 …
//	type:     person  auction×3     bid×46           person  auction …
//	date_time: base_time + n · (1 s / rate)  [− up to out_of_orderness]
//
//	person id        = n / 50 + 1000
//	auction id       = (n / 50) · 3 + (auctions before n in its epoch) + 1000
//	hot seller       = newest person rounded down to a multiple of 100
//	hot auction      = newest auction rounded down to a multiple of 100
//	hot bidder       = hot seller + 1
//
// The facts (ratios, id ranges, hot keys, price distribution, word lists,
// extra padding to average sizes of 200/500/100 bytes) are those of the
// reference generator as the project's Nexmark spec (nexmark.md) states them; the
// comments on Person, Auction and Bid give the details. For bids the
// "current" auction is the epoch's last one (the reference's
// lastBase0AuctionId), so a bid never refers to an auction opened after it,
// except through the reference's deliberate lead of up to 10 ids.
//
// # Invariants
//
//   - Event n is a pure function of (seed, rate, base_time,
//     out_of_orderness, n). Its randomness comes from a splitmix64 state
//     derived from (seed, n), never from a sequential stream, so Open at any
//     offset is O(1) and yields exactly the rows reading through would.
//     Out-of-orderness draws from a separate stream: turning it on changes
//     date_time and nothing else.
//   - A source produces one table: it steps arithmetically through the
//     event numbers of its table in its partition (partition p of P holds
//     the n with n % P == p) and never generates events of other types. The
//     person, auction and bid sources of one seed therefore describe one
//     consistent world: bids refer to auctions and persons of that world.
//   - Offsets are event numbers of the whole sequence: a partition's offset
//     is the next n it will consider. With events = N, the sequence is
//     n < N across all types; a source returns connectors.ErrEndOfInput once
//     every partition has passed N.
//   - Strings are substrings of tables built once per process (a pool of
//     random letters for extra, item names, descriptions and email parts;
//     the 10,000 channels and their URLs; the 99 person names), so bids and
//     auctions allocate nothing and a person allocates one string (its email
//     and credit card). A source batch costs two allocations: one slab of
//     values for all its rows and the row headers.
//   - The extra column pads records in the reference's accounting: 8 bytes
//     per number or timestamp plus the strings the reference counts (for a
//     bid, channel and url are not counted), so byte volumes compare with
//     the published Flink, RisingWave and Arroyo figures.
//
// rate sets event time only; throttle limits how fast the sequence advances
// in wall time (events of the whole sequence per second, shared by all
// partitions); by default a source produces as fast as it can.
package datagen
