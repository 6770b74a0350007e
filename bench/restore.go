package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/types"
)

// RestoreSQL is the restore benchmark's pipeline: unbounded Nexmark bids
// and auctions into a stored projection of every bid, a GROUP BY bidder,
// auction and an interval join of bids with their auction, so the state
// holds view rows, aggregate groups and join rows, as a production
// pipeline's does.
const RestoreSQL = `
SET strict = off;
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', seed = 42);
CREATE SOURCE auction (
    id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT,
    date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT, category BIGINT, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'auction', seed = 42);
CREATE MATERIALIZED VIEW bids AS
SELECT auction, bidder, price, channel, date_time FROM bid;
CREATE MATERIALIZED VIEW bidder_auction AS
SELECT bidder, auction, count(*) AS n, max(price) AS top FROM bid GROUP BY bidder, auction;
CREATE MATERIALIZED VIEW bid_auction AS
SELECT B.auction, B.bidder, B.price, A.seller, A.category
FROM bid B JOIN auction A ON A.id = B.auction
AND B.date_time BETWEEN A.date_time AND A.date_time + INTERVAL '20' SECOND;
`

// RestoreProbe returns the query a restored engine answers to show it is
// up: a point read of bidder_auction at the (bidder, auction) of the
// first bid RestoreSQL's source generates, a group every built state
// holds. A point read touches one key, so the figure is the time until
// the engine answers, not the time to read the whole view (a count(*)
// would read every stored row from Badger).
func RestoreProbe() string {
	g := datagen.NewGenerator(datagen.DefaultConfig()) // seed 42, as RestoreSQL
	n := int64(0)
	for g.EventType(n) != datagen.BidEvent {
		n++
	}
	row := make(types.Row, len(datagen.BidEvent.Schema()))
	g.Bid(n, row)
	return fmt.Sprintf("SELECT n FROM bidder_auction WHERE bidder = %d AND auction = %d", row[1].I, row[0].I)
}

// BuildRestoreState runs RestoreSQL on a fresh state directory dir,
// checkpointing every interval, until the directory holds at least target
// bytes after a checkpoint, then drops the engine as kill -9 would. It
// returns the state's size on disk after the drop (Badger's write-ahead
// files are folded into tables by then, so it is below target).
func BuildRestoreState(ctx context.Context, cfg Config, dir string, target int64) (int64, error) {
	reg := cfg.registry()
	interval := cfg.interval()
	e, err := engine.Open(engine.Options{StateDir: dir, Registry: reg, Settings: cfg.Settings})
	if err != nil {
		return 0, err
	}
	defer e.Crash()
	if _, err := e.Exec(ctx, RestoreSQL); err != nil {
		return 0, err
	}
	last := time.Now()
	for ctx.Err() == nil {
		if _, _, err := e.Step(ctx, DefaultBatch); err != nil {
			return 0, err
		}
		if time.Since(last) < interval {
			continue
		}
		if err := e.Checkpoint(); err != nil {
			return 0, err
		}
		last = time.Now()
		n, err := diskUsage(dir)
		if err != nil {
			return 0, err
		}
		if n >= target {
			if err := e.Crash(); err != nil {
				return 0, err
			}
			return diskUsage(dir)
		}
	}
	return 0, ctx.Err()
}

// RestoreMeasurement is one timed restart of a state directory.
type RestoreMeasurement struct {
	// StateBytes is the state directory's size on disk before the restart.
	StateBytes int64
	// Wall is the time from Open until the engine answered RestoreProbe;
	// CPU the process's CPU time over the same span.
	Wall, CPU time.Duration
	// PeakRSS is the process's peak resident set during the restart (see
	// Measurement.PeakRSS).
	PeakRSS      int64
	PeakRSSReset bool
	// Rows is RestoreProbe's answer: the bids of the probed group.
	Rows int64
	// Resume is the time from Open until the pipelines processed their
	// first batch after the probe (the operators read the cold state they
	// need as they go).
	Resume time.Duration
	// Count is how long RestoreCountQuery took after that, and Groups its
	// answer: reading every stored row of a view from Badger.
	Count  time.Duration
	Groups int64
}

// RestoreCountQuery reads every stored row of the GROUP BY view: the
// cold-read figure MeasureRestore takes after the restart.
const RestoreCountQuery = `SELECT count(*) FROM bidder_auction`

func (m RestoreMeasurement) String() string {
	return fmt.Sprintf("restored %.0f MB in %.2f s wall, %.2f s CPU (%.1f s/GB), peak RSS %.0f MiB; first batch at %.2f s; count(*) of %d groups %.2f s",
		float64(m.StateBytes)/1e6, m.Wall.Seconds(), m.CPU.Seconds(), m.Wall.Seconds()/(float64(m.StateBytes)/1e9), float64(m.PeakRSS)/(1<<20),
		m.Resume.Seconds(), m.Groups, m.Count.Seconds())
}

// MeasureRestore opens the engine on dir (recovering its state), waits
// for it to answer RestoreProbe, steps the pipelines once, counts the
// GROUP BY view and closes the engine again without a checkpoint.
func MeasureRestore(ctx context.Context, cfg Config, dir string) (RestoreMeasurement, error) {
	reg := cfg.registry()
	var m RestoreMeasurement
	var err error
	if m.StateBytes, err = diskUsage(dir); err != nil {
		return m, err
	}
	runtime.GC()
	debug.FreeOSMemory()
	m.PeakRSSReset = resetPeakRSS()
	ru0 := rusage()
	t0 := time.Now()
	e, err := engine.OpenContext(ctx, engine.Options{StateDir: dir, Registry: reg, Settings: cfg.Settings})
	if err != nil {
		return m, err
	}
	defer e.Crash()
	res, err := e.Exec(ctx, RestoreProbe())
	if err != nil {
		return m, err
	}
	m.Wall = time.Since(t0)
	ru1 := rusage()
	m.CPU = cpu(ru1) - cpu(ru0)
	m.PeakRSS = ru1.Maxrss * 1024
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return m, fmt.Errorf("restore probe %q: %d rows, want 1", RestoreProbe(), len(res.Rows))
	}
	m.Rows = res.Rows[0][0].I
	if _, _, err := e.Step(ctx, DefaultBatch); err != nil {
		return m, err
	}
	m.Resume = time.Since(t0)
	t1 := time.Now()
	if res, err = e.Exec(ctx, RestoreCountQuery); err != nil {
		return m, err
	}
	m.Count = time.Since(t1)
	if len(res.Rows) == 1 && len(res.Rows[0]) == 1 {
		m.Groups = res.Rows[0][0].I
	}
	return m, e.Crash()
}

// CopyDir copies the state directory src into dst (which must not exist),
// so one built state can be restored several times from the same files.
func CopyDir(src, dst string) error {
	return os.CopyFS(dst, os.DirFS(src))
}
