package pgwire

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestUnknownSettings: as in Postgres, SET, SHOW and RESET of an unknown
// name without a dot fail with 42704 and store nothing, while a dotted
// custom name (app.user_id) is a setting any session may SET and SHOW; the
// SETs drivers and tools send keep working, in the simple and the
// extended protocol.
func TestUnknownSettings(t *testing.T) {
	addr, _ := startServer(t)
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		c := connect(t, addr, mode)
		for _, q := range []string{"SET nosuch = 1", "SHOW nosuch", "RESET nosuch", "SET SESSION nosuch TO 'x'"} {
			_, err := c.Exec(ctx, q)
			code, pe := pgCode(err)
			if code != "42704" || pe.Message != `unrecognized configuration parameter "nosuch"` {
				t.Errorf("mode %v: %s: %v, want 42704 unrecognized configuration parameter \"nosuch\"", mode, q, err)
			}
		}
		mustExec(t, c,
			"SET extra_float_digits = 3", "SET application_name = 'PostgreSQL JDBC Driver'", "SET DateStyle = 'ISO, MDY'",
			"SET TIME ZONE 'UTC'", "SET NAMES 'UTF8'", `SET search_path = "$user", public`, "SET client_min_messages TO warning",
			"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED", "SET intervalstyle = postgres",
			"SET app.user_id = '42'", "RESET application_name")
		var v string
		if err := c.QueryRow(ctx, "SHOW app.user_id").Scan(&v); err != nil || v != "42" {
			t.Errorf("mode %v: SHOW app.user_id = %q, %v; want 42", mode, v, err)
		}
		if err := c.QueryRow(ctx, "SHOW extra_float_digits").Scan(&v); err != nil || v != "3" {
			t.Errorf("mode %v: SHOW extra_float_digits = %q, %v; want 3", mode, v, err)
		}
		if code, _ := pgCode(execErr(c, "SHOW app.unset")); code != "42704" {
			t.Errorf("mode %v: SHOW of a custom setting never set: code %q, want 42704", mode, code)
		}
	}
}

func execErr(c *pgx.Conn, sql string) error {
	_, err := c.Exec(context.Background(), sql)
	return err
}
