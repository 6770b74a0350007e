package pgwire

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestDeepStatementIsRefusedAndServerLives: a 10 MB statement of 5 M
// nested parentheses (which overflowed the stack and killed the server,
// dropping every session) and a 100,000-term OR chain each get 54001 on
// their session, in the simple and the extended protocol, while another
// session keeps answering queries during and after them.
func TestDeepStatementIsRefusedAndServerLives(t *testing.T) {
	addr, _ := startServer(t)
	a := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, a, "CREATE SOURCE s (k BIGINT)", "CREATE MATERIALIZED VIEW v AS SELECT k FROM s",
		"INSERT INTO s VALUES (1), (2)", "FLUSH")
	b := connect(t, addr, pgx.QueryExecModeExec)
	count := func() error {
		var n int64
		if err := b.QueryRow(context.Background(), "SELECT count(*) FROM v").Scan(&n); err != nil {
			return err
		}
		if n != 2 {
			t.Errorf("count = %d, want 2", n)
		}
		return nil
	}
	if err := count(); err != nil {
		t.Fatal(err)
	}

	deepDone := make(chan struct{})
	bDone := make(chan error, 1)
	go func() { // b queries the whole time a's deep statements run
		for {
			if err := count(); err != nil {
				bDone <- err
				return
			}
			select {
			case <-deepDone:
				bDone <- count() // and once more after them
				return
			default:
			}
		}
	}()

	const n = 5_000_000
	parens := "SELECT " + strings.Repeat("(", n) + "k" + strings.Repeat(")", n) + " FROM v"
	orChain := "SELECT k FROM v WHERE k = 1" + strings.Repeat(" OR k = 1", 100_000)
	for _, c := range []struct {
		name string
		sql  string
		mode pgx.QueryExecMode
	}{
		{"parentheses, simple", parens, pgx.QueryExecModeSimpleProtocol},
		{"parentheses, extended", parens, pgx.QueryExecModeExec},
		{"OR chain, simple", orChain, pgx.QueryExecModeSimpleProtocol},
	} {
		// A generous deadline: under -race on a busy 2-core machine one
		// 10 MB statement has taken over a minute to be read and refused.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		_, err := a.Exec(ctx, c.sql, c.mode)
		cancel()
		if code, _ := pgCode(err); code != "54001" {
			t.Errorf("%s: err = %.200v, want SQLSTATE 54001", c.name, err)
		}
	}
	close(deepDone)
	if err := <-bDone; err != nil {
		t.Fatalf("the other session failed: %v", err)
	}
	// the session that sent them carries on too
	var k int64
	if err := a.QueryRow(context.Background(), "SELECT k FROM v WHERE k = 2").Scan(&k); err != nil || k != 2 {
		t.Fatalf("after the deep statements: k = %d, %v", k, err)
	}
}

// TestDeepStatementErrorPosition: the error points at the first
// parenthesis past the limit, as a syntax error points at its token.
func TestDeepStatementErrorPosition(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	_, err := c.Exec(context.Background(), "SELECT "+strings.Repeat("(", 2000)+"1"+strings.Repeat(")", 2000))
	code, pe := pgCode(err)
	if code != "54001" {
		t.Fatalf("err = %.200v, want SQLSTATE 54001", err)
	}
	if pe.Position != 1008 || !strings.HasPrefix(pe.Message, "stack depth limit exceeded") {
		t.Fatalf("%q at position %d, want stack depth limit exceeded at 1008", pe.Message, pe.Position)
	}
}
