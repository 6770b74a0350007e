package pgwire

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

const psqlBin = "/usr/bin/psql"

// wirePsql runs the psql binary against addr with the given arguments (after
// -X -h -p -U); it returns stdout, stderr and the exit error.
func wirePsql(t *testing.T, addr string, args ...string) (string, string, error) {
	t.Helper()
	cmd := wirePsqlCmd(context.Background(), addr, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func wirePsqlCmd(ctx context.Context, addr string, args ...string) *exec.Cmd {
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.CommandContext(ctx, psqlBin, append([]string{"-X", "-h", host, "-p", port, "-U", "tester", "-d", "streamsql"}, args...)...)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=5", "PGSSLMODE=disable", "PGAPPNAME=psql-test")
	return cmd
}

func TestPsql(t *testing.T) {
	if _, err := os.Stat(psqlBin); err != nil {
		t.Fatalf("psql binary: %v", err)
	}
	addr, _ := startServer(t)
	out, stderr, err := wirePsql(t, addr,
		"-c", "CREATE SOURCE s (k BIGINT, v VARCHAR) WITH (connector = 'memory')",
		"-c", "CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n, max(v) AS last FROM s GROUP BY k",
		"-c", "INSERT INTO s VALUES (1, 'a'), (2, 'b'), (1, 'c'); FLUSH",
		"-c", "SELECT * FROM v",
		"-c", `\x on`,
		"-c", "SELECT * FROM v WHERE k = 1",
		"-c", "SHOW application_name")
	if err != nil {
		t.Fatalf("psql: %v\n%s\n%s", err, out, stderr)
	}
	for _, want := range []string{
		"CREATE SOURCE", "CREATE MATERIALIZED VIEW", "FLUSH",
		" k | n | last \n---+---+------\n 1 | 2 | c\n 2 | 1 | b\n(2 rows)",
		"Expanded display is on.",
		"-[ RECORD 1 ]\nk    | 1\nn    | 2\nlast | c",
		"application_name | psql-test",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("psql output lacks %q:\n%s", want, out)
		}
	}

	// An error shows its position the way Postgres's do.
	_, stderr, err = wirePsql(t, addr, "-c", "SELECT k FROM v WHERE k = 1 GARBAGE")
	if err == nil {
		t.Fatal("psql exited 0 on an error")
	}
	wantErr := "LINE 1: SELECT k FROM v WHERE k = 1 GARBAGE\n                                    ^"
	if !strings.Contains(stderr, "ERROR:  syntax error") || !strings.Contains(stderr, wantErr) {
		t.Fatalf("error without its position:\n%s", stderr)
	}

	// A multi-line script through stdin, errors not stopping it.
	cmd := wirePsqlCmd(context.Background(), addr, "-f", "-")
	cmd.Stdin = strings.NewReader("SELECT nope FROM v;\nSELECT count(*) AS total FROM v;\n")
	b, _ := cmd.CombinedOutput()
	if !strings.Contains(string(b), `column "nope" does not exist`) || !strings.Contains(string(b), " total \n-------\n     2") {
		t.Fatalf("script output:\n%s", b)
	}
}

// TestPsqlCancel stops a long FLUSH twice: with statement_timeout, and
// with Ctrl-C (SIGINT), on which psql sends a CancelRequest.
func TestPsqlCancel(t *testing.T) {
	addr, _ := startServer(t)
	setup := []string{
		"-c", "CREATE SOURCE bid (auction BIGINT, price BIGINT) WITH (connector = 'datagen', table = 'bid')",
		"-c", "CREATE MATERIALIZED VIEW cnt AS SELECT auction, count(*) AS n FROM bid GROUP BY auction",
	}
	if out, stderr, err := wirePsql(t, addr, setup...); err != nil {
		t.Fatalf("setup: %v\n%s%s", err, out, stderr)
	}
	_, stderr, err := wirePsql(t, addr, "-c", "SET flush_limit_rows = 2000000000", "-c", "SET statement_timeout = '300ms'", "-c", "FLUSH")
	if err == nil || !strings.Contains(stderr, "canceling statement due to statement timeout") {
		t.Fatalf("statement_timeout: %v\n%s", err, stderr)
	}

	cmd := wirePsqlCmd(context.Background(), addr, "-c", "SET flush_limit_rows = 2000000000", "-c", "FLUSH")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitEngineHeld(t, addr, "SELECT count(*) FROM cnt")
	if _, err := cancelUntilDone(t, done, func() error { return cmd.Process.Signal(syscall.SIGINT) }); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("psql did not end after SIGINT: %v", err)
	}
	if !strings.Contains(errb.String(), "canceling statement due to user request") {
		t.Fatalf("SIGINT: %s (%v)", errb.String(), cmd.ProcessState)
	}
}

// TestPsqlWalkthrough runs docs/server.md's session through psql: a
// throttled datagen source, a windowed view the server fills in the
// background, \d listing it, and a SUBSCRIBE cursor fetched twice.
func TestPsqlWalkthrough(t *testing.T) {
	addr, _ := startServer(t)
	setup := `CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP,
    WATERMARK FOR date_time AS date_time - INTERVAL '2' SECOND
) WITH (connector = 'datagen', table = 'bid', throttle = '1000');

CREATE MATERIALIZED VIEW per_10s AS
SELECT window_start, count(*) AS bids, max(price) AS top
FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
GROUP BY window_start
LATE DATA DROP;
`
	cmd := wirePsqlCmd(context.Background(), addr, "-v", "ON_ERROR_STOP=1", "-f", "-")
	cmd.Stdin = strings.NewReader(setup)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	probe := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	waitFor(t, "the background driver to fill the view", func() bool {
		var n int64
		return probe.QueryRow(context.Background(), "SELECT count(*) FROM per_10s").Scan(&n) == nil && n > 0
	})
	cmd = wirePsqlCmd(context.Background(), addr, "-v", "ON_ERROR_STOP=1", "-f", "-")
	cmd.Stdin = strings.NewReader(`SELECT count(*) > 0 AS filling FROM per_10s;
\d
DECLARE c CURSOR FOR SUBSCRIBE TO per_10s;
FETCH ALL FROM c;
FETCH 10 FROM c;
CLOSE c;
`)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	for _, want := range []string{
		" filling \n---------\n t",
		"public | per_10s | materialized view",
		"window_start | bids | top | op",
		"| upsert",
		"CLOSE CURSOR",
	} {
		if !strings.Contains(strings.Join(strings.Fields(string(out)), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
