package pgwire

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestSystemTablesOverPgx queries streamsql_catalog's tables and SHOW
// PIPELINES through the wire server in every pgx query mode: the
// extended modes describe them (typed columns, parameters) like any
// other relation.
func TestSystemTablesOverPgx(t *testing.T) {
	addr, _ := startServer(t)
	ctx := context.Background()
	for i, m := range execModes {
		t.Run(m.name, func(t *testing.T) {
			c := connect(t, addr, m.mode)
			src, view := fmt.Sprintf("sys_s%d", i), fmt.Sprintf("sys_v%d", i)
			mustExec(t, c,
				"CREATE SOURCE "+src+" (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH (connector = 'memory')",
				"CREATE MATERIALIZED VIEW "+view+" AS SELECT k, ts FROM "+src+" WHERE k > 1",
				"INSERT INTO "+src+" VALUES (1, '2024-01-01 00:00:01'), (2, '2024-01-01 00:00:02'), (3, '2024-01-01 00:00:03')",
				"FLUSH")
			var read int64
			var wm time.Time
			var lag time.Duration
			var idle bool
			err := c.QueryRow(ctx, `SELECT records_read, watermark, watermark_lag, idle FROM streamsql_catalog.sources WHERE pipeline = $1`, view).
				Scan(&read, &wm, &lag, &idle)
			if err != nil {
				t.Fatalf("sources: %v", err)
			}
			if read != 3 || !wm.Equal(time.Date(2024, 1, 1, 0, 0, 3, 0, time.UTC)) || lag <= 0 || idle {
				t.Errorf("sources row = %d %v %v %v", read, wm, lag, idle)
			}
			rows, err := c.Query(ctx, `SELECT id, operator, rows_in, rows_out FROM streamsql_catalog.operators WHERE view = $1 ORDER BY id`, view)
			if err != nil {
				t.Fatalf("operators: %v", err)
			}
			var got []string
			for rows.Next() {
				var op string
				var id, in, out int64
				if err := rows.Scan(&id, &op, &in, &out); err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%s %d %d", op, in, out))
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if want := "[Materialize 2 2 Project 2 2 Filter 3 2 Scan 3 3]"; fmt.Sprint(got) != want {
				t.Errorf("operators = %v, want %s", got, want)
			}
			var name, sources string
			var stalled bool
			found := false
			prow, err := c.Query(ctx, `SHOW PIPELINES`)
			if err != nil {
				t.Fatalf("SHOW PIPELINES: %v", err)
			}
			for prow.Next() {
				vals, err := prow.Values()
				if err != nil {
					t.Fatal(err)
				}
				name, sources = fmt.Sprint(vals[0]), fmt.Sprint(vals[1])
				stalled, _ = vals[6].(bool)
				if name == view {
					found = true
					if sources != src || stalled {
						t.Errorf("SHOW PIPELINES row %v", vals)
					}
				}
			}
			if err := prow.Err(); err != nil || !found {
				t.Fatalf("SHOW PIPELINES lacks %s (err %v)", view, err)
			}
		})
	}
}
