package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// allTypes is a view with every column kind; id is the key.
var allTypes = types.Schema{
	{Name: "id", Type: types.Int},
	{Name: "name", Type: types.String},
	{Name: "price", Type: types.Float},
	{Name: "ok", Type: types.Bool},
	{Name: "ts", Type: types.Timestamp},
	{Name: "dur", Type: types.Interval},
}

const t0 = int64(1704067200) * 1_000_000 // 2024-01-01 00:00:00 UTC

func row(id int64, name string, price float64) []types.Value {
	return []types.Value{types.IntValue(id), types.StringValue(name), types.FloatValue(price),
		types.BoolValue(id%2 == 0), types.TimestampValue(t0 + id*1_500_000 + 7), types.IntervalValue(id*90_000_000 + 3)}
}

const selectAll = "SELECT id, name, price, ok, ts::text, dur::text FROM t"

func TestUpsertAndDeleteEveryType(t *testing.T) {
	for _, delivery := range []string{ExactlyOnce, AtLeastOnce} {
		t.Run(delivery, func(t *testing.T) {
			dsn := newDB(t)
			s := openSink(t, allTypes, []int{0}, nil, map[string]string{"dsn": dsn, "table": "t", "create_table": "true", "delivery": delivery})
			mustWrite(t, s, up(row(1, "a", 1.5)...), up(row(2, "b", 2.25)...),
				up(types.IntValue(3), types.Value{}, types.Value{}, types.Value{}, types.Value{}, types.Value{}))
			mustCommit(t, s, 1)
			same(t, "after checkpoint 1", psql(t, dsn, selectAll),
				"1 a 1.5 false 2024-01-01 00:00:01.500007 00:01:30.000003",
				"2 b 2.25 true 2024-01-01 00:00:03.000007 00:03:00.000003",
				"3 <nil> <nil> <nil> <nil> <nil>")
			mustWrite(t, s, up(row(1, "a2", -1)...), del(row(2, "b", 2.25)...), del(types.IntValue(9)))
			mustCommit(t, s, 2)
			same(t, "after checkpoint 2", psql(t, dsn, selectAll),
				"1 a2 -1 false 2024-01-01 00:00:01.500007 00:01:30.000003",
				"3 <nil> <nil> <nil> <nil> <nil>")
			same(t, "created column types", psql(t, dsn, `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 't'`),
				"id bigint", "name text", "price double precision", "ok boolean",
				"ts timestamp without time zone", "dur interval")
			same(t, "fillfactor", psql(t, dsn, "SELECT reloptions FROM pg_class WHERE relname = 't'"), "[fillfactor=50]")
			same(t, "primary key", psql(t, dsn, `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 't'::regclass AND i.indisprimary`), "id")
			if delivery == ExactlyOnce {
				same(t, "progress", psql(t, dsn, "SELECT sink, checkpoint FROM streamsql_sink_progress"), "s1 2")
			} else {
				same(t, "no progress table", psql(t, dsn, "SELECT to_regclass('streamsql_sink_progress') IS NULL"), "true")
			}
		})
	}
}

func TestSameKeyTwiceInOneCheckpoint(t *testing.T) {
	for _, delivery := range []string{ExactlyOnce, AtLeastOnce} {
		t.Run(delivery, func(t *testing.T) {
			dsn := newDB(t)
			exec(t, dsn, "CREATE TABLE t (id bigint PRIMARY KEY, name text, price float8, ok bool, ts timestamp, dur interval)")
			s := openSink(t, allTypes, []int{0}, nil, map[string]string{"dsn": dsn, "table": "t", "delivery": delivery})
			mustWrite(t, s, up(row(1, "a", 1)...), up(row(2, "b", 2)...))
			mustWrite(t, s, up(row(1, "a1", 1)...), del(row(2, "b", 2)...), up(row(2, "b2", 2)...), up(row(1, "a3", 1)...))
			mustWrite(t, s, up(row(4, "d", 4)...), del(row(4, "d", 4)...))
			mustCommit(t, s, 1)
			same(t, "contents", psql(t, dsn, "SELECT id, name FROM t"), "1 a3", "2 b2")
		})
	}
}

func TestNothingVisibleBeforeCommit(t *testing.T) {
	dsn := newDB(t)
	s := openSink(t, allTypes, []int{0}, nil, map[string]string{"dsn": dsn, "table": "t", "create_table": "true"})
	mustWrite(t, s, up(row(1, "a", 1)...))
	staged, err := s.PreCommit(context.Background(), 1)
	if err != nil || len(staged) == 0 {
		t.Fatalf("pre-commit: %d staged bytes, %v", len(staged), err)
	}
	same(t, "before Commit", psql(t, dsn, "SELECT id FROM t"))
	if err := s.Commit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	same(t, "after Commit", psql(t, dsn, "SELECT id FROM t"), "1")
}

// TestCrashThenRecoverTwice uses a keyless (append-only) view, where
// applying a checkpoint twice would visibly insert its rows twice: the
// progress row is what makes Recover idempotent.
func TestCrashThenRecoverTwice(t *testing.T) {
	dsn := newDB(t)
	schema := types.Schema{{Name: "bidder", Type: types.Int}, {Name: "price", Type: types.Float}}
	opts := func() map[string]string {
		return map[string]string{"dsn": dsn, "table": "bids", "create_table": "true"}
	}
	bid := func(b int64, p float64) connectors.Change { return up(types.IntValue(b), types.FloatValue(p)) }
	s := openSink(t, schema, nil, nil, opts())
	mustWrite(t, s, bid(1, 10), bid(1, 10))
	staged1 := mustCommit(t, s, 1)
	mustWrite(t, s, bid(2, 20), bid(3, 30))
	staged2, err := s.PreCommit(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close() // the process dies before Commit(2)
	same(t, "after the crash", psql(t, dsn, "SELECT bidder, price FROM bids"), "1 10", "1 10")

	for i := range 2 {
		s := openSink(t, schema, nil, nil, opts())
		r := s.(connectors.Recoverer)
		if err := r.Recover(context.Background(), 2, staged2); err != nil {
			t.Fatalf("recover %d: %v", i, err)
		}
		// An older checkpoint is already covered by the progress row.
		if err := r.Recover(context.Background(), 1, staged1); err != nil {
			t.Fatalf("recover checkpoint 1: %v", err)
		}
		same(t, "after recovery", psql(t, dsn, "SELECT bidder, price FROM bids"), "1 10", "1 10", "2 20", "3 30")
		_ = s.Close()
	}
	s = openSink(t, schema, nil, nil, opts())
	mustWrite(t, s, bid(4, 40))
	mustCommit(t, s, 3)
	same(t, "after the next checkpoint", psql(t, dsn, "SELECT bidder, price FROM bids"), "1 10", "1 10", "2 20", "3 30", "4 40")
	same(t, "progress", psql(t, dsn, "SELECT sink, checkpoint FROM streamsql_sink_progress"), "s1 3")
	if err := s.Write(context.Background(), []connectors.Change{{Op: connectors.Delete, Row: types.Row{types.IntValue(4), types.FloatValue(40)}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PreCommit(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
	err = s.Commit(context.Background(), 4)
	if err == nil || !strings.Contains(err.Error(), "the view has no key") {
		t.Fatalf("a delete on a keyless view: %v", err)
	}
}

// TestRecoverAfterWriteConnectionsChange: a checkpoint that only some
// connections committed before a crash is completed by Recover, also when
// the sink comes back with a different write_connections (keys then move
// between connections, so the whole checkpoint is re-applied), and a
// shrunk sink's leftover progress rows are removed.
func TestRecoverAfterWriteConnectionsChange(t *testing.T) {
	dsn := newDB(t)
	schema := types.Schema{{Name: "id", Type: types.Int}, {Name: "v", Type: types.String}}
	open := func(conns string) connectors.Sink {
		return openSink(t, schema, []int{0}, nil, map[string]string{"dsn": dsn, "table": "t", "create_table": "true", "write_connections": conns})
	}
	version := func(v string) []connectors.Change {
		var out []connectors.Change
		for k := range int64(40) {
			out = append(out, up(types.IntValue(k), types.StringValue(v)))
		}
		return out
	}
	all := func(v string) []string {
		var out []string
		for k := range 40 {
			out = append(out, fmt.Sprintf("%d %s", k, v))
		}
		return out
	}
	// crashMidCommit stages checkpoint id and lets only connection lane
	// commit its share before the process dies.
	crashMidCommit := func(s connectors.Sink, id uint64, changes []connectors.Change, lane int) []byte {
		t.Helper()
		mustWrite(t, s, changes...)
		staged, err := s.PreCommit(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		core := s.(exactlyOnceSink).sink
		parts := connectors.Split(changes, []int{0}, len(core.lanes))
		if len(parts[lane]) == 0 || len(parts[lane]) == len(changes) {
			t.Fatalf("connection %d's share holds %d of %d changes", lane, len(parts[lane]), len(changes))
		}
		l := core.lanes[lane]
		if err := core.connect(context.Background(), l); err != nil {
			t.Fatal(err)
		}
		if _, err := core.writeTx(context.Background(), l, parts[lane], id, nil); err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
		return staged
	}
	recoverTwice := func(s connectors.Sink, id uint64, staged []byte) {
		t.Helper()
		for range 2 {
			if err := s.(connectors.Recoverer).Recover(context.Background(), id, staged); err != nil {
				t.Fatalf("recover %d: %v", id, err)
			}
		}
	}
	rows := func() []string { return psql(t, dsn, "SELECT id, v FROM t") }
	progress := func() []string { return psql(t, dsn, "SELECT sink, checkpoint FROM streamsql_sink_progress") }

	s := open("2")
	mustWrite(t, s, version("a")...)
	mustCommit(t, s, 1)
	same(t, "two connections, checkpoint 1", rows(), all("a")...)
	same(t, "two connections' progress", progress(), "s1 1", "s1#1 1")

	staged := crashMidCommit(s, 2, version("b"), 0)
	if got := rows(); slices.Equal(got, all("a")) || slices.Equal(got, all("b")) {
		t.Fatalf("after the crash every row is %v: connection 0's share alone should have committed", got[0])
	}
	s = open("1")
	recoverTwice(s, 2, staged)
	same(t, "one connection after recovering checkpoint 2", rows(), all("b")...)
	same(t, "the second connection's progress row is gone", progress(), "s1 2")

	staged = crashMidCommit(open("3"), 3, version("c"), 2)
	s = open("3")
	recoverTwice(s, 3, staged)
	same(t, "three connections after recovering checkpoint 3", rows(), all("c")...)
	same(t, "three connections' progress", progress(), "s1 3", "s1#1 3", "s1#2 3")

	mustWrite(t, s, version("d")...)
	mustCommit(t, s, 4)
	same(t, "checkpoint 4", rows(), all("d")...)
}

func TestAtLeastOnceFlushesEveryBatchRows(t *testing.T) {
	dsn := newDB(t)
	s := openSink(t, allTypes, []int{0}, nil, map[string]string{"dsn": dsn, "table": "t", "create_table": "true", "delivery": "at_least_once", "batch_rows": "3"})
	if _, ok := s.(connectors.Recoverer); ok {
		t.Error("an at-least-once sink implements Recoverer")
	}
	mustWrite(t, s, up(row(1, "a", 1)...), up(row(2, "b", 2)...))
	same(t, "below batch_rows", psql(t, dsn, "SELECT id FROM t"))
	mustWrite(t, s, up(row(3, "c", 3)...), up(row(4, "d", 4)...))
	same(t, "at batch_rows", psql(t, dsn, "SELECT id FROM t"), "1", "2", "3", "4")
	mustWrite(t, s, up(row(5, "e", 5)...))
	staged, err := s.PreCommit(context.Background(), 1)
	if err != nil || staged != nil {
		t.Fatalf("pre-commit: %v, %v", staged, err)
	}
	same(t, "after PreCommit", psql(t, dsn, "SELECT id FROM t"), "1", "2", "3", "4", "5")
	// A replay after a crash converges (upserts are by key) and leaves
	// rows that already hold the values untouched (same row version).
	before := psql(t, dsn, "SELECT id, xmin FROM t")
	mustWrite(t, s, up(row(4, "d", 4)...), up(row(5, "e", 5)...))
	mustCommit(t, s, 2)
	same(t, "after a replay", psql(t, dsn, "SELECT id, name FROM t"), "1 a", "2 b", "3 c", "4 d", "5 e")
	same(t, "row versions after a replay", psql(t, dsn, "SELECT id, xmin FROM t"), before...)
}

func TestExistingTableShapes(t *testing.T) {
	dsn := newDB(t)
	exec(t, dsn, `CREATE SCHEMA app;
		CREATE TABLE app."Q7" (window_start timestamptz NOT NULL, window_end timestamp, auction int NOT NULL,
			max_price numeric, note text DEFAULT 'x', UNIQUE (auction, window_start));
		CREATE TABLE by_auction (window_start timestamp, window_end timestamp, auction bigint PRIMARY KEY, max_price float8)`)
	ts := func(s int64) types.Value { return types.TimestampValue(t0 + s*1_000_000) }
	change := func(ws, auction int64, price float64) connectors.Change {
		return up(ts(ws), ts(ws+10), types.IntValue(auction), types.FloatValue(price))
	}
	s := openSink(t, q7Schema, []int{0, 2}, nil, map[string]string{"dsn": dsn, "table": `app."Q7"`})
	mustWrite(t, s, change(0, 1, 10.5), change(0, 2, 20), change(10, 1, 11))
	mustCommit(t, s, 1)
	mustWrite(t, s, change(0, 1, 12.25), del(ts(0), ts(10), types.IntValue(2), types.FloatValue(20)))
	mustCommit(t, s, 2)
	same(t, "a unique index, timestamptz, int and numeric columns", psql(t, dsn, `SELECT window_start::text, auction, max_price::text, note FROM app."Q7"`),
		"2024-01-01 00:00:00+00 1 12.25 x", "2024-01-01 00:00:10+00 1 11 x")
	same(t, "progress table in the target's schema", psql(t, dsn, "SELECT sink, checkpoint FROM app.streamsql_sink_progress"), "s1 2")

	// primary_key names a key other than the view's.
	s2 := openSink(t, q7Schema, []int{0, 2}, nil, map[string]string{"dsn": dsn, "table": "by_auction", "primary_key": "auction"})
	mustWrite(t, s2, change(0, 1, 10), change(10, 1, 11), change(0, 2, 5))
	mustCommit(t, s2, 1)
	same(t, "primary_key = auction", psql(t, dsn, "SELECT auction, max_price FROM by_auction"), "1 11", "2 5")
	if d := s2.(connectors.Delivery).Delivery(); d != "exactly-once (one Postgres transaction per checkpoint with progress row; key auction)" {
		t.Errorf("Delivery() = %q", d)
	}
}

func TestTableDoesNotFit(t *testing.T) {
	dsn := newDB(t)
	exec(t, dsn, `CREATE TABLE q7_results (window_start timestamp, window_end timestamp, auction bigint, PRIMARY KEY (window_start, auction));
		CREATE TABLE q7_text (window_start timestamp, window_end timestamp, auction bigint, max_price text, PRIMARY KEY (window_start, auction));
		CREATE TABLE q7_nokey (window_start timestamp, window_end timestamp, auction bigint, max_price float8, UNIQUE (auction))`)
	for _, tc := range []struct {
		table, create, want string
	}{
		{"q7_results", "false", "table public.q7_results has no column max_price"},
		{"q7_text", "false", "table public.q7_text: column max_price is text, the view's column is DOUBLE"},
		{"q7_nokey", "false", "no primary key or unique constraint on (window_start, auction) (it has unique keys on (auction)"},
		{"q7_missing", "false", "table q7_missing does not exist (create it, or set create_table = true)"},
		{"q7_text", "true", "column max_price is text"}, // create_table does not hide a misfit table
		{"nosuchschema.q7", "true", `schema "nosuchschema" does not exist`},
	} {
		_, err := Factory(nil).New(connectors.SinkSpec{Name: "s1", Schema: q7Schema, Key: []int{0, 2},
			Options: map[string]string{"connector": "postgres", "dsn": dsn, "table": tc.table, "create_table": tc.create}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("table %s: error %v, want it to contain %q", tc.table, err, tc.want)
		}
	}
}

func TestPermanentErrorsAreNotRetried(t *testing.T) {
	dsn := newDB(t)
	exec(t, dsn, "CREATE TABLE t (id bigint PRIMARY KEY, name text, price float8 CHECK (price >= 0), ok bool, ts timestamp, dur interval)")
	s := openSink(t, allTypes, []int{0}, nil, map[string]string{"dsn": dsn, "table": "t"})
	mustWrite(t, s, up(row(1, "a", -1)...))
	if _, err := s.PreCommit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := s.Commit(ctx, 1)
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), `violates check constraint "t_price_check"`) ||
		!strings.Contains(err.Error(), "postgres sink s1 (table public.t): commit checkpoint 1") {
		t.Fatalf("commit: %v (ctx %v)", err, ctx.Err())
	}
}

// TestValueOfAnotherKindIsPermanent: a value the COPY stream cannot
// encode for its column fails the commit at once, naming the column,
// rather than as a cancelled COPY that looks worth retrying; the
// transaction leaves nothing behind.
func TestValueOfAnotherKindIsPermanent(t *testing.T) {
	dsn := newDB(t)
	s := openSink(t, allTypes, []int{0}, nil, map[string]string{"dsn": dsn, "table": "t", "create_table": "true"})
	bad := row(2, "b", 0)
	bad[2] = types.StringValue("two")
	mustWrite(t, s, up(row(1, "a", 1)...), up(bad...))
	if _, err := s.PreCommit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := s.Commit(ctx, 1)
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "column price is") ||
		!strings.Contains(err.Error(), "but a change carries a VARCHAR value (two)") {
		t.Fatalf("commit: %v (ctx %v)", err, ctx.Err())
	}
	same(t, "rows", psql(t, dsn, "SELECT id FROM t"))
}

func TestPasswordNeverShown(t *testing.T) {
	dsn := strings.Replace(newDB(t), "postgres@", "postgres:s3cretpw@", 1) // trust auth ignores it
	var logs logBuffer
	s := openSink(t, allTypes, []int{0}, logs.logger(), map[string]string{"dsn": dsn, "table": "t", "create_table": "true"})
	if d := s.(connectors.Delivery).Delivery(); strings.Contains(d, "s3cretpw") || d != "exactly-once (one Postgres transaction per checkpoint with progress row; key id)" {
		t.Errorf("Delivery() = %q", d)
	}
	bad := strings.Replace(dsn, "/t", "/nosuchdb_t", 1)
	_, err := Factory(logs.logger()).New(connectors.SinkSpec{Name: "s2", Schema: allTypes, Key: []int{0},
		Options: map[string]string{"connector": "postgres", "dsn": bad, "table": "t"}})
	if err == nil || !strings.Contains(err.Error(), "does not exist") || strings.Contains(err.Error(), "s3cretpw") {
		t.Errorf("a missing database: %v", err)
	}
	if strings.Contains(logs.String(), "s3cretpw") {
		t.Errorf("the logs show the password:\n%s", logs.String())
	}
}

// TestPostgresOutage stops Postgres with the sink connected, lets Commit
// (exactly-once) or PreCommit (at-least-once) block while it is down, and
// restarts it: the call succeeds with nothing lost. A call whose context
// ends during the outage returns the context's error and keeps the
// changes for the next call.
func TestPostgresOutage(t *testing.T) {
	for _, c := range []struct{ delivery, conns string }{{ExactlyOnce, "1"}, {AtLeastOnce, "1"}, {ExactlyOnce, "2"}} {
		delivery := c.delivery
		t.Run(delivery+"/"+c.conns, func(t *testing.T) {
			db := srv.NewDB(t)
			dsn := strings.Replace(srv.DSNFor(db), "postgres@", "postgres:s3cretpw@", 1)
			var logs logBuffer
			s := openSink(t, allTypes, []int{0}, logs.debugLogger(), map[string]string{"dsn": dsn, "table": "t",
				"create_table": "true", "delivery": delivery, "retry_max_backoff": "200ms", "write_connections": c.conns})
			mustWrite(t, s, up(row(1, "a", 1)...))
			mustCommit(t, s, 1)

			if err := srv.Stop(); err != nil {
				t.Fatal(err)
			}
			restarted := make(chan error, 1)
			defer func() {
				if err := <-restarted; err != nil {
					t.Fatalf("restart: %v", err)
				}
			}()
			mustWrite(t, s, up(row(2, "b", 2)...), up(row(1, "a1", 1)...))
			commit := func(ctx context.Context) error {
				if delivery == AtLeastOnce {
					_, err := s.PreCommit(ctx, 2)
					return err
				}
				return s.Commit(ctx, 2)
			}
			if delivery == ExactlyOnce {
				if _, err := s.PreCommit(context.Background(), 2); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			err := commit(ctx)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				restarted <- nil
				t.Fatalf("a call while Postgres is down and the context ends: %v", err)
			}
			committed := make(chan error, 1)
			go func() { committed <- commit(context.Background()) }()
			// Restart once the blocked call has failed a few times (the
			// first call's attempts are logged at the debug level too).
			waitFor(t, "failed retries", func() bool { return strings.Count(logs.String(), "level=DEBUG") >= 6 })
			restarted <- srv.Restart()
			if err := <-committed; err != nil {
				t.Fatalf("after the outage: %v", err)
			}
			same(t, "after the outage", psql(t, srv.DSNFor(db), "SELECT id, name FROM t"), "1 a1", "2 b")
			l := logs.String()
			// One outage, however many attempts and connections failed:
			// one warning and one note.
			if strings.Count(l, `level=WARN msg="postgres sink: Postgres unavailable, retrying"`) != 1 ||
				strings.Count(l, `level=INFO msg="postgres sink: Postgres is back"`) != 1 {
				t.Errorf("want the outage and the recovery logged once each:\n%s", l)
			}
			if strings.Contains(l, "s3cretpw") {
				t.Errorf("the logs show the password:\n%s", l)
			}
			// Every failed attempt was retried and counted (each logged one line).
			if n, lines := s.(connectors.Retrier).Retries(), strings.Count(l, `msg="postgres sink: Postgres unavailable, retrying"`); n < 6 || n != int64(lines) {
				t.Errorf("Retries() = %d, want the %d failed attempts logged (at least 6)", n, lines)
			}
		})
	}
}

// TestCloseEndsABlockedCommit: a Commit retrying against a stopped
// Postgres returns once the sink is closed (an engine shutting down must
// not hang on it).
func TestCloseEndsABlockedCommit(t *testing.T) {
	dsn := newDB(t)
	s := openSink(t, allTypes, []int{0}, nil, map[string]string{"dsn": dsn, "table": "t", "create_table": "true"})
	mustWrite(t, s, up(row(1, "a", 1)...))
	if _, err := s.PreCommit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Restart(); err != nil {
			t.Fatalf("restart: %v", err)
		}
	}()
	done := make(chan error, 1)
	go func() { done <- s.Commit(context.Background(), 1) }()
	time.Sleep(300 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, errClosed) {
			t.Fatalf("commit after Close: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Commit still blocked 10 s after Close")
	}
}

// TestOneValueColumn covers the upsert's SET and IS DISTINCT FROM lists
// with a single non-key column, and an all-key view (DO NOTHING).
func TestOneValueColumn(t *testing.T) {
	dsn := newDB(t)
	kv := types.Schema{{Name: "k", Type: types.Int}, {Name: "v", Type: types.Int}}
	s := openSink(t, kv, []int{0}, nil, map[string]string{"dsn": dsn, "table": "kv", "create_table": "true"})
	mustWrite(t, s, up(types.IntValue(1), types.IntValue(10)), up(types.IntValue(2), types.IntValue(20)))
	mustCommit(t, s, 1)
	mustWrite(t, s, up(types.IntValue(1), types.IntValue(11)), up(types.IntValue(2), types.IntValue(20)))
	mustCommit(t, s, 2)
	same(t, "one value column", psql(t, dsn, "SELECT k, v FROM kv"), "1 11", "2 20")

	all := openSink(t, kv, []int{0, 1}, nil, map[string]string{"dsn": dsn, "table": "kv_all", "create_table": "true"})
	mustWrite(t, all, up(types.IntValue(1), types.IntValue(10)), up(types.IntValue(1), types.IntValue(11)))
	mustCommit(t, all, 1)
	mustWrite(t, all, up(types.IntValue(1), types.IntValue(10)), del(types.IntValue(1), types.IntValue(11)))
	mustCommit(t, all, 2)
	same(t, "every column in the key", psql(t, dsn, "SELECT k, v FROM kv_all"), "1 10")
}

// TestPostgresStopsMidCommit stops Postgres while Commit's transaction is
// in flight (its INSERT waits on a lock another session holds, so the
// timing is certain; its session is terminated first, then the server
// stops): the transaction dies, Commit retries after the restart, and
// every change lands exactly once.
func TestPostgresStopsMidCommit(t *testing.T) {
	db := srv.NewDB(t)
	dsn := srv.DSNFor(db)
	schema := types.Schema{{Name: "bidder", Type: types.Int}, {Name: "price", Type: types.Float}}
	var logs logBuffer
	s := openSink(t, schema, nil, logs.logger(), map[string]string{"dsn": dsn, "table": "bids", "create_table": "true", "retry_max_backoff": "200ms"})
	mustWrite(t, s, up(types.IntValue(1), types.FloatValue(1)))
	mustCommit(t, s, 1)
	mustWrite(t, s, up(types.IntValue(2), types.FloatValue(2)), up(types.IntValue(3), types.FloatValue(3)))
	if _, err := s.PreCommit(context.Background(), 2); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	locker, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	if _, err := locker.Exec(ctx, "BEGIN; LOCK TABLE bids IN EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Commit(ctx, 2) }()
	var waiting []string
	waitFor(t, "the sink's INSERT to wait on the lock", func() bool {
		waiting = psql(t, dsn, "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO%'")
		return len(waiting) == 1
	})
	// Stopping the server ends the locker's session too, and on a loaded
	// machine the INSERT can get its lock and commit before its own
	// session ends: terminate it first, so its transaction surely dies.
	if _, err := locker.Exec(ctx, "SELECT pg_terminate_backend("+waiting[0]+")"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("commit: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Commit did not finish a minute after Postgres came back")
	}
	same(t, "after the restart", psql(t, dsn, "SELECT bidder, price FROM bids"), "1 1", "2 2", "3 3")
	same(t, "progress", psql(t, dsn, "SELECT checkpoint FROM streamsql_sink_progress"), "2")
	if !strings.Contains(logs.String(), "Postgres unavailable, retrying") {
		t.Errorf("no retry logged:\n%s", logs.String())
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestNumericAndDateColumns writes DECIMAL and DATE columns to the real
// Postgres: the created table has numeric(p,s), numeric and date columns,
// and every digit and scale arrives (0.30 stays 0.30, a 30-digit value
// stays exact).
func TestNumericAndDateColumns(t *testing.T) {
	dsn := newDB(t)
	schema := types.Schema{
		{Name: "id", Type: types.Int},
		{Name: "amount", Type: types.Decimal, Precision: 10, Scale: 2},
		{Name: "total", Type: types.Decimal},
		{Name: "day", Type: types.Date},
	}
	s := openSink(t, schema, []int{0}, nil, map[string]string{"dsn": dsn, "table": "money", "create_table": "true"})
	mustWrite(t, s,
		up(types.IntValue(1), dec("0.30"), dec("0.30"), types.DateValue(19723)),
		up(types.IntValue(2), dec("-99999999.99"), dec("123456789012345678901234567890.123456789"), types.DateValue(-1)),
		up(types.IntValue(3), types.Value{}, dec("0"), types.Value{}))
	mustCommit(t, s, 1)
	mustWrite(t, s, up(types.IntValue(3), dec("1.00"), dec("0.0001"), types.DateValue(0)), del(types.IntValue(2), types.Value{}, types.Value{}, types.Value{}))
	mustCommit(t, s, 2)
	same(t, "values", psql(t, dsn, "SELECT id, amount::text, total::text, day::text FROM money"),
		"1 0.30 0.30 2024-01-01", "3 1.00 0.0001 1970-01-01")
	same(t, "created column types", psql(t, dsn, `SELECT column_name, format_type(atttypid, atttypmod) FROM information_schema.columns
		JOIN pg_attribute ON attrelid = 'money'::regclass AND attname = column_name WHERE table_name = 'money'`),
		"id bigint", "amount numeric(10,2)", "total numeric", "day date")

	// The big value round-trips through Postgres digit for digit.
	mustWrite(t, s, up(types.IntValue(2), dec("-0.01"), dec("-98765432109876543210.000000000001"), types.DateValue(-719162)))
	mustCommit(t, s, 3)
	same(t, "large and old values", psql(t, dsn, "SELECT amount::text, total::text, day::text FROM money WHERE id = 2"),
		"-0.01 -98765432109876543210.000000000001 0001-01-01")

	// An existing numeric(12,2) column holds a DECIMAL(10,2); numeric(12,1)
	// would round it and is refused by the fit check.
	exec(t, dsn, `CREATE TABLE wide (id bigint PRIMARY KEY, amount numeric(12,2), total numeric, day timestamp);
		CREATE TABLE narrow (id bigint PRIMARY KEY, amount numeric(12,1), total numeric, day date)`)
	w := openSink(t, schema, []int{0}, nil, map[string]string{"dsn": dsn, "table": "wide"})
	mustWrite(t, w, up(types.IntValue(1), dec("0.20"), dec("5"), types.DateValue(19723)))
	mustCommit(t, w, 1)
	same(t, "into numeric(12,2) and timestamp", psql(t, dsn, "SELECT amount::text, total::text, day::text FROM wide"), "0.20 5 2024-01-01 00:00:00")
	_, err := Factory(nil).New(connectors.SinkSpec{Name: "s2", Schema: schema, Key: []int{0},
		Options: map[string]string{"connector": "postgres", "dsn": dsn, "table": "narrow"}})
	if err == nil || !strings.Contains(err.Error(), "column amount is numeric(12,1), too narrow for the view's DECIMAL(10,2)") {
		t.Fatalf("narrow table: %v", err)
	}
}

// TestJSONBColumns writes JSONB values as keys and values into a created
// jsonb table and into an existing one, with upserts and deletes; a text
// column does not fit.
func TestJSONBColumns(t *testing.T) {
	dsn := newDB(t)
	schema := types.Schema{{Name: "k", Type: types.JSONB}, {Name: "doc", Type: types.JSONB}}
	js := func(s string) types.Value {
		v, err := types.ParseJSONB(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	s := openSink(t, schema, []int{0}, nil, map[string]string{"dsn": dsn, "table": "docs", "create_table": "true"})
	mustWrite(t, s, up(js(`{"id": 1}`), js(`{"b": [1, 2.50], "a": "x\ny"}`)), up(js(`[2]`), js(`null`)), up(js(`"3"`), types.Value{}))
	mustCommit(t, s, 1)
	mustWrite(t, s, del(js(`[2]`), types.Value{}), up(js(`"3"`), js(`{"é": true}`)))
	mustCommit(t, s, 2)
	same(t, "values", psql(t, dsn, "SELECT k::text, doc::text FROM docs ORDER BY k"),
		`"3" {"é": true}`, `{"id": 1} {"a": "x\ny", "b": [1, 2.50]}`)
	same(t, "created column types", psql(t, dsn, `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'docs'`),
		"k jsonb", "doc jsonb")

	exec(t, dsn, `CREATE TABLE jdocs (k jsonb PRIMARY KEY, doc jsonb); CREATE TABLE tdocs (k jsonb PRIMARY KEY, doc text)`)
	w := openSink(t, schema, []int{0}, nil, map[string]string{"dsn": dsn, "table": "jdocs"})
	mustWrite(t, w, up(js(`1`), js(`{"a": 1}`)))
	mustCommit(t, w, 1)
	same(t, "into jsonb", psql(t, dsn, "SELECT k::text, doc::text FROM jdocs"), `1 {"a": 1}`)
	_, err := Factory(nil).New(connectors.SinkSpec{Name: "s3", Schema: schema, Key: []int{0},
		Options: map[string]string{"connector": "postgres", "dsn": dsn, "table": "tdocs"}})
	if err == nil || !strings.Contains(err.Error(), "doc") {
		t.Fatalf("text column for a JSONB: %v", err)
	}
}

// TestByteaColumns writes BYTEA values (a zero byte, high bytes, an empty
// value) as keys and values into a created bytea table, with upserts and
// deletes.
func TestByteaColumns(t *testing.T) {
	dsn := newDB(t)
	schema := types.Schema{{Name: "k", Type: types.Bytea}, {Name: "b", Type: types.Bytea}}
	by := types.ByteaValue
	s := openSink(t, schema, []int{0}, nil, map[string]string{"dsn": dsn, "table": "blobs", "create_table": "true"})
	mustWrite(t, s, up(by("\x00\xff"), by("a\\b")), up(by(""), by("\x80")), up(by("k"), types.Value{}))
	mustCommit(t, s, 1)
	mustWrite(t, s, del(by(""), types.Value{}), up(by("k"), by("\x00")))
	mustCommit(t, s, 2)
	same(t, "values", psql(t, dsn, "SELECT k::text, b::text FROM blobs ORDER BY k"),
		`\x00ff \x615c62`, `\x6b \x00`)
	same(t, "created column types", psql(t, dsn, `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'blobs'`),
		"k bytea", "b bytea")
}

// TestArrayColumns writes array values (NULL elements, empty arrays,
// quoted text) into a created table's array columns, with upserts and
// deletes, and into an existing one; a key column may not be an array.
func TestArrayColumns(t *testing.T) {
	dsn := newDB(t)
	ints := func(vs ...types.Value) types.Value { return types.ArrayValue(types.Int, vs) }
	texts := func(vs ...string) types.Value {
		out := make([]types.Value, len(vs))
		for i, v := range vs {
			out[i] = types.StringValue(v)
		}
		return types.ArrayValue(types.String, out)
	}
	schema := types.Schema{{Name: "k", Type: types.Int}, {Name: "nums", Type: types.ArrayOf(types.Int)},
		{Name: "tags", Type: types.ArrayOf(types.String)}, {Name: "ds", Type: types.ArrayOf(types.Decimal)}}
	dec := types.DecimalValue(150, 2)
	s := openSink(t, schema, []int{0}, nil, map[string]string{"dsn": dsn, "table": "arrs", "create_table": "true"})
	mustWrite(t, s, up(types.IntValue(1), ints(types.IntValue(1), types.NullValue), texts("a b", "", `q"`), types.ArrayValue(types.Decimal, []types.Value{dec})),
		up(types.IntValue(2), ints(), texts(), types.Value{}), up(types.IntValue(3), types.Value{}, texts("x"), types.Value{}))
	mustCommit(t, s, 1)
	mustWrite(t, s, del(types.IntValue(3), types.Value{}, types.Value{}, types.Value{}), up(types.IntValue(2), ints(types.IntValue(-7)), texts("NULL"), types.Value{}))
	mustCommit(t, s, 2)
	same(t, "values", psql(t, dsn, "SELECT k, nums::text, tags::text, coalesce(ds::text, '-') FROM arrs ORDER BY k"),
		`1 {1,NULL} {"a b","","q\""} {1.50}`, `2 {-7} {"NULL"} -`)
	same(t, "created column types", psql(t, dsn, `SELECT column_name, udt_name FROM information_schema.columns WHERE table_name = 'arrs' ORDER BY ordinal_position`),
		"k int8", "nums _int8", "tags _text", "ds _numeric")

	_, err := Factory(nil).New(connectors.SinkSpec{Name: "s2", Schema: schema, Key: []int{1},
		Options: map[string]string{"connector": "postgres", "dsn": dsn, "table": "arrs2", "create_table": "true"}})
	if err == nil || !strings.Contains(err.Error(), "key column nums is an array") {
		t.Fatalf("array key: %v", err)
	}
}
