package pgwire

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

var execModes = []struct {
	name string
	mode pgx.QueryExecMode
}{
	{"simple", pgx.QueryExecModeSimpleProtocol},
	{"exec", pgx.QueryExecModeExec},
	{"cache_statement", pgx.QueryExecModeCacheStatement},
	{"cache_describe", pgx.QueryExecModeCacheDescribe},
	{"describe_exec", pgx.QueryExecModeDescribeExec},
}

// TestPgxModes runs the same session in every pgx query mode: DDL, INSERT
// with parameters, FLUSH, typed reads back (binary in the extended modes,
// text in simple mode and when asked), errors with their SQLSTATE, and the
// connection surviving them.
func TestPgxModes(t *testing.T) {
	addr, _ := startServer(t)
	ctx := context.Background()
	for i, m := range execModes {
		t.Run(m.name, func(t *testing.T) {
			c := connect(t, addr, m.mode)
			src, view := fmt.Sprintf("s%d", i), fmt.Sprintf("v%d", i)
			mustExec(t, c,
				"CREATE SOURCE "+src+" (k BIGINT, b BOOLEAN, f DOUBLE, s VARCHAR, ts TIMESTAMP, iv INTERVAL) WITH (connector = 'memory')",
				"CREATE MATERIALIZED VIEW "+view+" AS SELECT k, b, f, s, ts, iv FROM "+src)
			ts := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
			if _, err := c.Exec(ctx, "INSERT INTO "+src+" VALUES ($1, $2, $3, $4, $5, $6)", int64(1), true, 1.5, "it's", ts, 90*time.Second); err != nil {
				t.Fatalf("insert: %v", err)
			}
			if _, err := c.Exec(ctx, "INSERT INTO "+src+" VALUES (2, false, -0.25, 'two', CAST('2024-01-01 00:00:00' AS TIMESTAMP), '1 day')"); err != nil {
				t.Fatalf("insert literal: %v", err)
			}
			mustExec(t, c, "FLUSH")

			var (
				k  int64
				b  bool
				f  float64
				s  string
				gt time.Time
				iv time.Duration
			)
			row := c.QueryRow(ctx, "SELECT k, b, f, s, ts, iv FROM "+view+" WHERE k = $1", 1)
			if err := row.Scan(&k, &b, &f, &s, &gt, &iv); err != nil {
				t.Fatalf("select: %v", err)
			}
			if k != 1 || !b || f != 1.5 || s != "it's" || !gt.Equal(ts) || iv != 90*time.Second {
				t.Fatalf("got %v %v %v %q %v %v", k, b, f, s, gt, iv)
			}
			// A string parameter compared with a BIGINT column, and the
			// text result format asked for explicitly.
			row = c.QueryRow(ctx, "SELECT s, iv, f FROM "+view+" WHERE k = $1", pgx.QueryResultFormats{pgx.TextFormatCode}, "2")
			if err := row.Scan(&s, &iv, &f); err != nil {
				t.Fatalf("select text: %v", err)
			}
			if s != "two" || iv != 24*time.Hour || f != -0.25 {
				t.Fatalf("text format: %q %v %v", s, iv, f)
			}
			rows, err := c.Query(ctx, "SELECT k FROM "+view+" WHERE k >= $1", 0)
			if err != nil {
				t.Fatal(err)
			}
			ks, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil || len(ks) != 2 {
				t.Fatalf("collect: %v %v", ks, err)
			}

			for _, e := range []struct {
				sql, code string
				pos       bool
			}{
				{"SELEC 1", "42601", true},
				{"SELECT * FROM nope", "42P01", false},
				{"SELECT nope FROM " + view, "42703", false},
				{"INSERT INTO " + src + " PARTITION (p7) VALUES (1, true, 1, 'x', NULL, NULL)", "22023", false},
				{"SELECT * FROM " + src, "0A000", false},
			} {
				_, err := c.Exec(ctx, e.sql)
				code, pe := pgCode(err)
				if code != e.code {
					t.Errorf("%s: error %v, want SQLSTATE %s", e.sql, err, e.code)
					continue
				}
				if e.pos && pe.Position == 0 {
					t.Errorf("%s: no position in %+v", e.sql, pe)
				}
			}
			// The connection survived every error.
			var n int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM "+view).Scan(&n); err != nil || n != 2 {
				t.Fatalf("after errors: %v %v", n, err)
			}
		})
	}
}

// TestSyntaxErrorPosition checks Position is a character offset into the
// whole query text, later statements of a multi-statement query included.
func TestSyntaxErrorPosition(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	q := "SHOW TimeZone; SELECT 'é' FROM x WHERE y = 1 GARBAGE"
	_, err := c.Exec(context.Background(), q)
	code, pe := pgCode(err)
	if code != "42601" {
		t.Fatalf("err %v", err)
	}
	want := int32(strings.Index(q, "GARBAGE")) // bytes; 'é' is two bytes, one character
	if pe.Position != want {
		t.Fatalf("position %d, want %d (%s)", pe.Position, want, pe.Message)
	}
}

// TestSyntaxErrorPositionExtended: in a prepared statement the position
// counts in the statement as the client wrote it, parameters unsubstituted.
func TestSyntaxErrorPositionExtended(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, c, "CREATE SOURCE s (k BIGINT) WITH (connector = 'memory')", "CREATE MATERIALIZED VIEW v AS SELECT k FROM s")
	for _, m := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement} {
		c := connect(t, addr, m)
		q := "SELECT k FROM v WHERE k = $1 GARBAGE"
		_, err := c.Exec(context.Background(), q, 123456789)
		code, pe := pgCode(err)
		if code != "42601" {
			t.Fatalf("mode %v: %v, want 42601", m, err)
		}
		if want := int32(strings.Index(q, "GARBAGE") + 1); pe.Position != want {
			t.Errorf("mode %v: position %d, want %d", m, pe.Position, want)
		}
	}
}

// TestParseFailsOnSyntaxError: as in Postgres, a statement that does not
// parse fails at its Parse message and is not created, so the client may
// prepare a correct one under the same name (before, the broken one was
// kept and the second Parse was refused with 42P05).
func TestParseFailsOnSyntaxError(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, c, "CREATE SOURCE s (k BIGINT) WITH (connector = 'memory')", "CREATE MATERIALIZED VIEW v AS SELECT k FROM s")
	ctx := context.Background()
	bad := "SELECT k FROM v WHERE k = $1 GARBAGE"
	_, err := c.PgConn().Prepare(ctx, "st", bad, nil)
	code, pe := pgCode(err)
	if code != "42601" {
		t.Fatalf("prepare %q: %v, want 42601", bad, err)
	}
	if want := int32(strings.Index(bad, "GARBAGE") + 1); pe.Position != want {
		t.Errorf("position %d, want %d", pe.Position, want)
	}
	sd, err := c.PgConn().Prepare(ctx, "st", "SELECT k FROM v WHERE k = $1", nil)
	if err != nil {
		t.Fatalf("prepare under the failed statement's name: %v", err)
	}
	if len(sd.ParamOIDs) != 1 || len(sd.Fields) != 1 || sd.Fields[0].Name != "k" {
		t.Fatalf("described %+v", sd)
	}
}

// TestCancel cancels a long FLUSH (an unbounded datagen source) through
// the context: pgx sends a CancelRequest and the statement ends with 57014;
// the server and a fresh connection carry on.
func TestCancel(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeExec)
	mustExec(t, c,
		"CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR) WITH (connector = 'datagen', table = 'bid')",
		"CREATE MATERIALIZED VIEW cnt AS SELECT auction, count(*) AS n FROM bid GROUP BY auction",
		"SET flush_limit_rows = 2000000000")
	// A CancelRequest on a new connection while FLUSH runs.
	flushed := make(chan error, 1)
	go func() {
		_, err := c.Exec(context.Background(), "FLUSH")
		flushed <- err
	}()
	waitEngineHeld(t, addr, "SELECT count(*) FROM cnt")
	err, late := cancelUntilDone(t, flushed, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), waitDeadline)
		defer cancel()
		return c.PgConn().CancelRequest(ctx)
	})
	if late != nil || !isUserCancel(err) {
		t.Fatalf("FLUSH: %v (%v), want SQLSTATE 57014", err, late)
	}
	mustExec(t, c, "SET flush_limit_rows = 2000000000") // the session lives on

	// A context deadline: pgx sends the CancelRequest itself.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.Exec(ctx, "FLUSH"); err == nil || ctx.Err() == nil {
		t.Fatalf("FLUSH with a deadline: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("cancel took %v", d)
	}
	c2 := connect(t, addr, pgx.QueryExecModeExec)

	// pg_cancel_backend from another session.
	c3 := connect(t, addr, pgx.QueryExecModeExec)
	pid := c3.PgConn().PID()
	mustExec(t, c3, "SET flush_limit_rows = 2000000000", "SET statement_timeout = '120s'") // a safety net
	go func() {
		_, err := c3.Exec(context.Background(), "FLUSH")
		flushed <- err
	}()
	waitEngineHeld(t, addr, "SELECT count(*) FROM cnt")
	err, late = cancelUntilDone(t, flushed, func() error {
		var ok bool
		if err := c2.QueryRow(context.Background(), "SELECT pg_cancel_backend($1)", pid).Scan(&ok); err != nil || !ok {
			return fmt.Errorf("pg_cancel_backend(%d): %v %v", pid, ok, err)
		}
		return nil
	})
	if late != nil || !isUserCancel(err) {
		t.Fatalf("FLUSH: %v (%v), want SQLSTATE 57014 by pg_cancel_backend", err, late)
	}
	mustExec(t, c2, "SET flush_limit_rows = 1000")
}

// isUserCancel reports whether err is a 57014 cancel by user request.
func isUserCancel(err error) bool {
	code, pe := pgCode(err)
	return code == "57014" && strings.Contains(pe.Message, "user request")
}

// TestStatementTimeout: SET statement_timeout stops a long statement.
func TestStatementTimeout(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, c,
		"CREATE SOURCE bid (auction BIGINT, price BIGINT) WITH (connector = 'datagen', table = 'bid')",
		"CREATE MATERIALIZED VIEW cnt AS SELECT auction, count(*) AS n FROM bid GROUP BY auction",
		"SET flush_limit_rows = 2000000000",
		"SET statement_timeout = '200ms'")
	_, err := c.Exec(context.Background(), "FLUSH")
	code, pe := pgCode(err)
	if code != "57014" || !strings.Contains(pe.Message, "timeout") {
		t.Fatalf("FLUSH: %v, want a 57014 statement timeout", err)
	}
	mustExec(t, c, "RESET statement_timeout", "SHOW statement_timeout")
}

// TestCancelWhileWaitingForTheEngine: a statement waiting behind another
// session's long FLUSH for the engine is cancelled by its
// statement_timeout, and so is preparing one (Parse/Describe), and a point
// query by its client's deadline, without waiting for the FLUSH to end.
func TestCancelWhileWaitingForTheEngine(t *testing.T) {
	addr, _ := startServer(t)
	a := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, a,
		"CREATE SOURCE bid (auction BIGINT, price BIGINT) WITH (connector = 'datagen', table = 'bid')",
		"CREATE MATERIALIZED VIEW cnt AS SELECT auction, count(*) AS n FROM bid GROUP BY auction",
		"SET flush_limit_rows = 2000000000",
		"SET statement_timeout = '120s'") // a safety net
	flushed := make(chan error, 1)
	go func() {
		_, err := a.Exec(context.Background(), "FLUSH")
		flushed <- err
	}()
	waitEngineHeld(t, addr, "SELECT count(*) FROM cnt")
	b := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, b, "SET statement_timeout = '200ms'")
	start := time.Now()
	_, err := b.Exec(context.Background(), "SELECT count(*) FROM cnt")
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the timeout took %v: it waited for the FLUSH", d) // the FLUSH holds it for 120 s
	}
	if code, pe := pgCode(err); code != "57014" || !strings.Contains(pe.Message, "timeout") {
		t.Fatalf("a query behind the FLUSH: %v, want a 57014 statement timeout", err)
	}

	start = time.Now()
	_, err = b.Prepare(context.Background(), "behind", "SELECT n FROM cnt WHERE auction = $1")
	if code, _ := pgCode(err); code != "57014" {
		t.Fatalf("preparing behind the FLUSH: %v, want 57014", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("preparing took %v: it waited for the FLUSH", d)
	}

	c := connect(t, addr, pgx.QueryExecModeCacheStatement)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start = time.Now()
	var n int64
	if err := c.QueryRow(ctx, "SELECT n FROM cnt WHERE auction = $1", 1000).Scan(&n); err == nil {
		t.Fatal("a point query behind the FLUSH answered before it ended")
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the point query's cancel took %v: it waited for the FLUSH", d)
	}

	if err := a.PgConn().CancelRequest(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-flushed; err == nil {
		t.Fatal("the long FLUSH was not cancelled")
	}
	mustExec(t, b, "RESET statement_timeout", "SELECT count(*) FROM cnt") // both sessions live on
}

// TestEngineSettingsArePerSession: SET strict in one connection leaves
// another connection's strict as it was.
func TestEngineSettingsArePerSession(t *testing.T) {
	addr, _ := startServer(t) // the server's default: strict off
	a := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	b := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, a, "SET strict = on")
	var sa, sb string
	if err := a.QueryRow(context.Background(), "SHOW strict").Scan(&sa); err != nil {
		t.Fatal(err)
	}
	if err := b.QueryRow(context.Background(), "SHOW strict").Scan(&sb); err != nil {
		t.Fatal(err)
	}
	if sa != "on" || sb != "off" {
		t.Fatalf("after SET strict = on in a: a %q, b %q", sa, sb)
	}
	mustExec(t, b, "CREATE SOURCE s (k BIGINT)")
	if _, err := a.Exec(context.Background(), "CREATE MATERIALIZED VIEW va AS SELECT k, count(*) AS n FROM s GROUP BY k"); err == nil {
		t.Fatal("strict session a accepted an unbounded view")
	}
	mustExec(t, b, "CREATE MATERIALIZED VIEW vb AS SELECT k, count(*) AS n FROM s GROUP BY k")
}

// TestSemanticErrorPosition: an unknown column's error carries the
// column's character position, as a syntax error's does.
func TestSemanticErrorPosition(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, c, "CREATE SOURCE s (k BIGINT)", "CREATE MATERIALIZED VIEW v AS SELECT k FROM s")
	_, err := c.Exec(context.Background(), "SELECT k, zz FROM v")
	code, pe := pgCode(err)
	if code != "42703" || pe.Position != 11 {
		t.Fatalf("unknown column: %v (position %d), want 42703 at 11", err, pe.Position)
	}
}

// TestPgxNumericAndDate reads DECIMAL and DATE columns with pgx in every
// query mode (binary results in the extended modes, text in simple mode
// and when asked), sends them as parameters, and checks that sums stay
// exact at the column's scale and that overflow is 22003.
func TestPgxNumericAndDate(t *testing.T) {
	addr, _ := startServer(t)
	ctx := context.Background()
	for i, m := range execModes {
		t.Run(m.name, func(t *testing.T) {
			c := connect(t, addr, m.mode)
			src, view, sums := fmt.Sprintf("n%d", i), fmt.Sprintf("nv%d", i), fmt.Sprintf("ns%d", i)
			mustExec(t, c,
				"CREATE SOURCE "+src+" (k BIGINT, amount DECIMAL(12,2), d DATE) WITH (connector = 'memory')",
				"CREATE MATERIALIZED VIEW "+view+" AS SELECT k, amount, d, CAST(amount AS DOUBLE) AS f FROM "+src,
				"SET strict = off",
				"CREATE MATERIALIZED VIEW "+sums+" AS SELECT d, sum(amount) AS total FROM "+src+" GROUP BY d")
			day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
			if _, err := c.Exec(ctx, "INSERT INTO "+src+" VALUES (1, 0.1, '2024-01-01'), (2, 0.2, $1)", day); err != nil {
				t.Fatalf("insert: %v", err)
			}
			amount := pgtype.Numeric{Int: big.NewInt(1), Exp: 0, Valid: true}
			if _, err := c.Exec(ctx, "INSERT INTO "+src+" VALUES ($1, $2, $3)", int64(3), amount, day.AddDate(0, 0, 1)); err != nil {
				t.Fatalf("insert numeric parameter: %v", err)
			}
			mustExec(t, c, "FLUSH")

			for _, formats := range []pgx.QueryResultFormats{nil, {pgx.TextFormatCode}, {pgx.BinaryFormatCode}} {
				var total pgtype.Numeric
				var d time.Time
				args := []any{day}
				if formats != nil {
					args = append([]any{formats}, args...)
				}
				if err := c.QueryRow(ctx, "SELECT total, d FROM "+sums+" WHERE d = $1", args...).Scan(&total, &d); err != nil {
					t.Fatalf("formats %v: %v", formats, err)
				}
				if v, _ := total.Value(); v != "0.30" || !d.Equal(day) {
					t.Fatalf("formats %v: sum %v on %v, want 0.30 on %v", formats, v, d, day)
				}
			}
			var s, ds string
			if err := c.QueryRow(ctx, "SELECT CAST(amount AS VARCHAR), CAST(d AS VARCHAR) FROM "+view+" WHERE k = 3").Scan(&s, &ds); err != nil {
				t.Fatal(err)
			}
			if s != "1.00" || ds != "2024-01-02" {
				t.Fatalf("as text: %q %q", s, ds)
			}
			var f float64
			var a pgtype.Numeric
			if err := c.QueryRow(ctx, "SELECT amount, f FROM "+view+" WHERE amount = $1", pgtype.Numeric{Int: big.NewInt(20), Exp: -2, Valid: true}).Scan(&a, &f); err != nil {
				t.Fatalf("numeric parameter in WHERE: %v", err)
			}
			if v, _ := a.Value(); v != "0.20" || f != 0.2 {
				t.Fatalf("got %v %v", v, f)
			}
			_, err := c.Exec(ctx, "INSERT INTO "+src+" VALUES (4, 12345678901, NULL)")
			if code, _ := pgCode(err); code != "22003" {
				t.Fatalf("overflow: %v, want SQLSTATE 22003", err)
			}
		})
	}
}
