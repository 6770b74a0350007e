package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/streamsql/streamsql/engine"
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

// RestoreProbe is the query a restored engine answers to show it is up.
const RestoreProbe = `SELECT count(*) FROM bidder_auction`

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
	// Rows is RestoreProbe's answer.
	Rows int64
}

func (m RestoreMeasurement) String() string {
	return fmt.Sprintf("restored %.0f MB in %.2f s wall, %.2f s CPU (%.1f s/GB), peak RSS %.0f MiB",
		float64(m.StateBytes)/1e6, m.Wall.Seconds(), m.CPU.Seconds(), m.Wall.Seconds()/(float64(m.StateBytes)/1e9), float64(m.PeakRSS)/(1<<20))
}

// MeasureRestore opens the engine on dir (recovering its state), waits
// for it to answer RestoreProbe and closes it again without a checkpoint.
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
	res, err := e.Exec(ctx, RestoreProbe)
	if err != nil {
		return m, err
	}
	m.Wall = time.Since(t0)
	ru1 := rusage()
	m.CPU = cpu(ru1) - cpu(ru0)
	m.PeakRSS = ru1.Maxrss * 1024
	if len(res.Rows) == 1 && len(res.Rows[0]) == 1 {
		m.Rows = res.Rows[0][0].I
	}
	return m, e.Crash()
}

// CopyDir copies the state directory src into dst (which must not exist),
// so one built state can be restored several times from the same files.
func CopyDir(src, dst string) error {
	return os.CopyFS(dst, os.DirFS(src))
}
