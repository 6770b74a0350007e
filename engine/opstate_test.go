package engine

import (
	"fmt"
	"strings"
	"testing"
)

// TestOperatorStateSizes: with a state budget of 2 groups, an aggregate
// over 50 groups spills the changed ones it evicts (spilled bytes), reads
// them back when their groups get rows again (spill reads), estimates the
// bytes of the groups in memory, and is timed (processing); a checkpoint
// empties the spill area.
func TestOperatorStateSizes(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir(), Settings: map[string]string{"parallelism": "1", "state_cache_size": "2", "strict": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	run := mustExec(t, e)
	run(`CREATE SOURCE s (k BIGINT, v BIGINT)`)
	run(`CREATE MATERIALIZED VIEW m AS SELECT k, sum(v) AS total FROM s GROUP BY k`)
	insert := func() {
		var vals []string
		for k := range 50 {
			vals = append(vals, fmt.Sprintf("(%d, %d)", k, k))
		}
		run(`INSERT INTO s VALUES ` + strings.Join(vals, ", "))
		run(`FLUSH`)
	}
	insert()
	insert()
	agg := func() string {
		t.Helper()
		return rowLines(run(`SELECT state_keys > 0, memory_bytes > 0, spilled_bytes > 0, spill_reads > 0, processing = processing - processing
			FROM streamsql_catalog.operators WHERE view = 'm' AND operator = 'Aggregate'`))
	}
	if got := agg(); got != "t t t t f\n" {
		t.Fatalf("aggregate keys, memory, spilled, reads, processing not 0: %s", got)
	}
	scan := rowLines(run(`SELECT processing, memory_bytes FROM streamsql_catalog.operators WHERE view = 'm' AND operator = 'Scan'`))
	if scan != "00:00:00 NULL\n" {
		t.Fatalf("scan processing and memory bytes: %s", scan)
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if got := rowLines(run(`SELECT spilled_bytes FROM streamsql_catalog.operators WHERE view = 'm' AND operator = 'Aggregate'`)); got != "0\n" {
		t.Fatalf("spilled bytes after a checkpoint: %s", got)
	}
}
