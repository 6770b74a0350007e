package pgwire

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestTimeZoneSession: SET TIME ZONE changes what the session prints and
// how it reads zone-less text, pgx reads TIMESTAMPTZ and TIME in every
// query mode (text and binary), and the server reports TimeZone as a
// ParameterStatus.
func TestTimeZoneSession(t *testing.T) {
	addr, e := startServer(t)
	ctx := context.Background()
	if _, err := e.Exec(ctx, `CREATE TABLE tz (k BIGINT PRIMARY KEY, at TIMESTAMPTZ, tm TIME);
		INSERT INTO tz VALUES (1, '2024-01-01 09:00:00+00', '12:34:56.5')`); err != nil {
		t.Fatal(err)
	}
	want := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement} {
		conn := connect(t, addr, mode)
		if _, err := conn.Exec(ctx, "SET TIME ZONE 'Europe/Berlin'"); err != nil {
			t.Fatal(err)
		}
		if got := conn.PgConn().ParameterStatus("TimeZone"); got != "Europe/Berlin" {
			t.Errorf("mode %v: ParameterStatus TimeZone = %q", mode, got)
		}
		var at time.Time
		var text string
		if err := conn.QueryRow(ctx, "SELECT at, at::text FROM tz WHERE k = 1").Scan(&at, &text); err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		if !at.Equal(want) || text != "2024-01-01 10:00:00+01" {
			t.Errorf("mode %v: at = %v, text %q", mode, at, text)
		}
		var k int64
		if err := conn.QueryRow(ctx, "SELECT k FROM tz WHERE at = '2024-01-01 10:00:00'").Scan(&k); err != nil || k != 1 {
			t.Errorf("mode %v: zone-less text read in the session zone: %v, %v", mode, k, err)
		}
		var tm string
		if err := conn.QueryRow(ctx, "SELECT tm::text FROM tz WHERE k = 1").Scan(&tm); err != nil || tm != "12:34:56.5" {
			t.Errorf("mode %v: time = %q, %v", mode, tm, err)
		}
		var show string
		if err := conn.QueryRow(ctx, "SHOW timezone").Scan(&show); err != nil || show != "Europe/Berlin" {
			t.Errorf("mode %v: SHOW timezone = %q, %v", mode, show, err)
		}
		if _, err := conn.Exec(ctx, "SET TIME ZONE 'Mars/Olympus'"); err == nil {
			t.Errorf("mode %v: an unknown zone was accepted", mode)
		}
		conn.Close(ctx)
	}
}

// TestTimestampTZArrayWire: a TIMESTAMPTZ[] column is described as
// timestamptz[] (1185), its text form prints the elements in the
// session's zone, and pgx reads it back in every query mode (text and
// binary).
func TestTimestampTZArrayWire(t *testing.T) {
	addr, e := startServer(t)
	ctx := context.Background()
	if _, err := e.Exec(ctx, `CREATE TABLE tza (k BIGINT PRIMARY KEY, ats TIMESTAMPTZ[]);
		INSERT INTO tza VALUES (1, '{"2024-01-01 09:00:00+00","2024-07-01 09:30:00+00"}')`); err != nil {
		t.Fatal(err)
	}
	want := []time.Time{time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC), time.Date(2024, 7, 1, 9, 30, 0, 0, time.UTC)}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement} {
		conn := connect(t, addr, mode)
		if _, err := conn.Exec(ctx, "SET TIME ZONE 'Europe/Berlin'"); err != nil {
			t.Fatal(err)
		}
		var ats []time.Time
		if err := conn.QueryRow(ctx, "SELECT ats FROM tza WHERE k = 1").Scan(&ats); err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		if len(ats) != 2 || !ats[0].Equal(want[0]) || !ats[1].Equal(want[1]) {
			t.Errorf("mode %v: ats = %v", mode, ats)
		}
		res, err := conn.PgConn().Exec(ctx, "SELECT ats FROM tza WHERE k = 1").ReadAll()
		if err != nil || len(res) != 1 || len(res[0].Rows) != 1 {
			t.Fatalf("mode %v: %v, %v", mode, res, err)
		}
		if oid := res[0].FieldDescriptions[0].DataTypeOID; oid != 1185 {
			t.Errorf("mode %v: column oid %d, want 1185", mode, oid)
		}
		if got := string(res[0].Rows[0][0]); got != `{"2024-01-01 10:00:00+01","2024-07-01 11:30:00+02"}` {
			t.Errorf("mode %v: text %s", mode, got)
		}
		conn.Close(ctx)
	}
}
