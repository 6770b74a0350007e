package engine

import (
	"testing"
	"time"
)

// TestIdlePartitionStopsHoldingTheWatermark drives the wall clock by hand:
// a memory source with two partitions where only p0 receives rows holds
// its watermark back until p1 has been idle for idle_timeout; then the
// window closes on p0's watermark alone.
func TestIdlePartitionStopsHoldingTheWatermark(t *testing.T) {
	// The option's forms: SQL interval text, a Go duration, milliseconds.
	for _, idle := range []string{"5 seconds", "5s", "5000"} {
		t.Run(idle, func(t *testing.T) { idlePartition(t, idle) })
	}
}

func idlePartition(t *testing.T, idle string) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, exec := openClocked(t, &now)
	exec(`CREATE SOURCE s (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH (partitions = 2, idle_timeout = '` + idle + `')`)
	exec(`CREATE MATERIALIZED VIEW m AS SELECT window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
		GROUP BY window_start LATE DATA DROP EMIT ON WINDOW CLOSE`)
	exec(`INSERT INTO s PARTITION (p0) VALUES (1, '2024-01-01 00:00:01'), (1, '2024-01-01 00:00:20')`)
	exec(`FLUSH`)
	if n := len(exec(`SELECT * FROM m`).Rows); n != 0 {
		t.Fatalf("p1 has not been idle for 5 s yet: %d windows fired, want 0", n)
	}
	now = now.Add(6 * time.Second)
	exec(`FLUSH`)
	rows := exec(`SELECT window_start, n FROM m`).Rows
	if len(rows) != 1 || rows[0].String() != "2024-01-01 00:00:00 1" {
		t.Fatalf("after p1 idled out: %v, want [2024-01-01 00:00:00 1]", rows)
	}
}
