package state

import badger "github.com/dgraph-io/badger/v4"

// Option configures Open.
type Option func(*openConfig)

// openConfig is what the options set; the zero value keeps Open's
// defaults (a 64 MiB memtable, every table index in memory).
type openConfig struct {
	memoryLimit int64
	clear       [][]byte
	forReading  bool
	wholeApply  bool // benchmarks: recovery ignores an apply's recorded progress
}

// WithClearOnOpen deletes every key with prefix when the store opens
// (see Clear), before a committed checkpoint an interrupted run left
// staged is applied in the background: for data outside checkpoints that
// recovery starts without (the spill area).
func WithClearOnOpen(prefix []byte) Option {
	return func(c *openConfig) { c.clear = append(c.clear, prefix) }
}

// ForReading opens the store for a caller that only reads it (`streamsql
// query` on a crashed store): Badger runs no compactions, which Close
// would wait for, and a committed checkpoint an interrupted run left
// staged is not applied, only merged into reads (the next store opened
// for writing applies it). Nothing may write to such a store.
func ForReading() Option {
	return func(c *openConfig) { c.forReading = true }
}

// WithMemoryLimit sizes Badger's memtable, index cache and tables from
// limit, the process's memory limit in bytes (see BadgerSizes); zero or
// less keeps the defaults.
func WithMemoryLimit(limit int64) Option {
	return func(c *openConfig) { c.memoryLimit = limit }
}

// Sizes are the Badger buffers Open sizes from a memory limit, in bytes.
type Sizes struct {
	// MemTable is one memtable; Badger keeps up to Memtables of them (one
	// being written, the rest waiting to be flushed to level 0), so the
	// write path holds up to Memtables times this.
	MemTable int64
	// Memtables is how many memtables Badger may hold, and Compactors
	// how many compactions it runs at once (each builds its tables in
	// memory).
	Memtables, Compactors int
	// IndexCache caches table indexes and bloom filters; without it every
	// table's index stays in memory however large the state grows.
	IndexCache int64
	// BaseTable is the size of a table at Badger's base level (its
	// BaseTableSize); each level below doubles it, so at 1 GB of state the
	// deepest level's tables are four times this. A compaction builds its
	// output tables in memory, one per key-range split at once (up to five
	// or six) while the finished ones are written out, and a builder holds
	// a table's blocks in buffers that double as they grow, up to twice
	// the table's size (six times while tables were compressed: raw and
	// compressed, closed at the compressed size); Badger keeps up to eight
	// finished builders' buffers for reuse. So the Go heap that compactions
	// hold scales with this size, not with the state.
	BaseTable int64
}

// BadgerSizes returns the buffers for a memory limit: a memtable of
// 1/10 of it (8–64 MiB: Badger needs 8 MiB for its 1 MiB value
// threshold, and the 64 MiB cap is the size without a limit; a smaller
// one means more flushes, and Badger caps a transaction at 15% of it), an
// index cache of 1/32 (2–128 MiB) and base-level tables of 1/640 (256
// KiB – 2 MiB, Badger's default): with its default 2 MiB, at 1 GB of state and a 320 MiB limit, Badger
// held up to 341 MB of the Go heap, most of it the compactions' table
// builders (291 MB of z.Calloc buffers; heap profiles of `streamsql run`
// on the 1 GB state, docs/benchmarks.md), more than the limit; with 512
// KiB, 198–207 MB.
// Under 1 GiB Badger holds two memtables and runs two compactions, not
// its defaults of five and four: at 1 GB of state and a 320 MiB limit
// the queued memtables and the compactions' table builders took the Go
// heap to 0.9–1.0 GB (peak RSS 889–969 MiB; with two and two, 661–666
// MiB, the same throughput: docs/benchmarks.md). The rest of the limit
// is left to the pipelines' own state.
func BadgerSizes(limit int64) Sizes {
	memtables, compactors := 5, 4
	if limit < 1<<30 {
		memtables, compactors = 2, 2
	}
	return Sizes{
		Memtables:  memtables,
		Compactors: compactors,
		MemTable:   clamp(limit/10, 8<<20, 64<<20),
		IndexCache: clamp(limit/32, 2<<20, 128<<20),
		BaseTable:  clamp(limit/640, 256<<10, 2<<20),
	}
}

func clamp(v, lo, hi int64) int64 { return min(max(v, lo), hi) }

// MemTableArena is the heap one memtable takes: Badger allocates its
// skiplist's arena at the memtable size plus room for one more full write
// batch (15% of the memtable) and for that batch's nodes (as much again),
// 1.3 times MemTable (41.6 MB at a 32 MiB memtable; heap profiles of
// `skl.newArena`, docs/benchmarks.md).
func (s Sizes) MemTableArena() int64 { return s.MemTable + 2*(s.MemTable*15/100) }

// txnLimits returns the bytes and changes a checkpoint may buffer for one
// transaction: txnMaxBytes and txnMaxChanges, or under a smaller memtable
// (whose transactions Badger caps at 15% of it) 5/6 of Badger's byte cap
// and half its entry cap, the margins the constants keep at 64 MiB.
func txnLimits(db *badger.DB) (maxBytes, maxChanges int) {
	return int(min(txnMaxBytes, db.MaxBatchSize()*5/6)), int(min(txnMaxChanges, db.MaxBatchCount()/2))
}
