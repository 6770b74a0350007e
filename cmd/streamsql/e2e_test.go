package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/internal/pgtest"
	"github.com/streamsql/streamsql/types"
)

// The end-to-end tests run the real binary against a real Postgres (a
// throwaway server started by the test) and Kafka (franz-go's kfake in
// this process, reached over TCP).

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string

	pgOnce sync.Once
	pgSrv  *pgtest.Server
	pgStop func()
	pgErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if pgStop != nil {
		pgStop()
	}
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// streamsqlBinary builds the command once per test run.
func streamsqlBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "streamsql-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "streamsql")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// sharedPostgres returns the package's shared throwaway server.
func sharedPostgres(t testing.TB) *pgtest.Server {
	t.Helper()
	pgOnce.Do(func() { pgSrv, pgStop, pgErr = pgtest.StartMain() })
	if pgErr != nil {
		t.Fatal(pgErr)
	}
	return pgSrv
}

// bidsInput is a Kafka topic of Nexmark bids with a fraction of malformed
// records, and what a correct pipeline must make of it.
type bidsInput struct {
	brokers string
	cluster *kfake.Cluster
	// windows maps a 10-second window start to "count sum(price)" over the
	// well-formed bids.
	windows map[int64][2]int64
	// poison lists "partition/offset" of every malformed record.
	poison []string
	good   int
}

// newBidsTopic starts kfake with a 4-partition bids topic and produces n
// bids (a fraction poison malformed) spread over the given duration.
func newBidsTopic(t testing.TB, n int64, poison float64, over time.Duration) (*bidsInput, <-chan error) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "bids"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	in := &bidsInput{brokers: strings.Join(c.ListenAddrs(), ","), cluster: c}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("bids"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	rate := int64(0)
	if over > 0 {
		rate = n * int64(time.Second) / int64(over)
	}
	go func() {
		defer cl.Close()
		_, err := produceBids(context.Background(), cl, n, rate, poison)
		done <- err
	}()
	return in, done
}

// expect reads the whole topic back and computes the expected windows and
// poison records, so the test's oracle is independent of the engine.
func (in *bidsInput) expect(t testing.TB, n int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(in.brokers, ",")...), kgo.ConsumeTopics("bids"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	in.windows = map[int64][2]int64{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var seen int64
	for seen < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read back %d of %d records", seen, n)
		}
		fs.EachRecord(func(r *kgo.Record) {
			seen++
			var bid struct {
				Price    int64  `json:"price"`
				DateTime string `json:"date_time"`
			}
			if json.Unmarshal(r.Value, &bid) != nil {
				in.poison = append(in.poison, fmt.Sprintf("%d/%d", r.Partition, r.Offset))
				return
			}
			ts, err := types.ParseTimestamp(bid.DateTime)
			if err != nil {
				t.Errorf("bid with bad time %q", bid.DateTime)
				return
			}
			w := ts - ts%(10*types.Second)
			agg := in.windows[w]
			agg[0]++
			agg[1] += bid.Price
			in.windows[w] = agg
			in.good++
		})
	}
	sort.Strings(in.poison)
}

// wantRows renders the expected window table as sorted text rows.
func (in *bidsInput) wantRows() []string {
	var out []string
	for w, agg := range in.windows {
		out = append(out, fmt.Sprintf("%s %s %d %d", types.FormatTimestamp(w), types.FormatTimestamp(w+10*types.Second), agg[0], agg[1]))
	}
	sort.Strings(out)
	return out
}

const kafkaToPostgres = `
CREATE SOURCE bids (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP, extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '2' SECOND
) WITH (connector = 'kafka', brokers = '%[1]s', topic = 'bids', format = 'json',
        on_error = 'dead_letter', dead_letter = 'bids_dlq');

CREATE MATERIALIZED VIEW volume AS
SELECT window_start, window_end, count(*) AS bids, sum(price) AS total
FROM TUMBLE(bids, date_time, INTERVAL '10' SECOND)
GROUP BY window_start, window_end
ALLOWED LATENESS INTERVAL '1' MINUTE
LATE DATA UPDATE;

CREATE SINK volume_pg FROM volume WITH (
  connector = 'postgres', dsn = '%[2]s', table = 'volume',
  create_table = true, delivery = '%[3]s');

CREATE SINK bids_dlq_pg FROM bids_dlq WITH (
  connector = 'postgres', dsn = '%[2]s', table = 'bids_dlq',
  create_table = true, delivery = '%[3]s');
`

// volumeQuery reads the sink table of kafkaToPostgres (see windowRows).
const volumeQuery = `SELECT window_start, window_end, bids, total FROM volume`

// windowRows runs query, which selects window start, window end, a count
// and a total, and returns the rows as sorted "start end count total"
// text.
func windowRows(dsn, query string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var ws, we time.Time
		var n, total int64
		if err := rows.Scan(&ws, &we, &n, &total); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%s %s %d %d", types.FormatTimestamp(ws.UnixMicro()), types.FormatTimestamp(we.UnixMicro()), n, total))
	}
	sort.Strings(out)
	return out, rows.Err()
}

// waitForRows polls Postgres until query's rows (see windowRows) equal
// want.
func waitForRows(t *testing.T, dsn, query string, want []string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var got []string
	var err error
	for time.Now().Before(deadline) {
		got, err = windowRows(dsn, query)
		if err == nil && strings.Join(got, "\n") == strings.Join(want, "\n") {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("Postgres table never matched (last error %v):\n got %d rows %v\nwant %d rows %v", err, len(got), got, len(want), want)
}

type pipelineRun struct {
	t     *testing.T
	bin   string
	file  string
	state string
	log   *os.File
}

func newPipelineRun(t *testing.T, sql string) *pipelineRun {
	dir := t.TempDir()
	file := filepath.Join(dir, "pipeline.sql")
	if err := os.WriteFile(file, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "run.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	return &pipelineRun{t: t, bin: streamsqlBinary(t), file: file, state: filepath.Join(dir, "state"), log: log}
}

func (p *pipelineRun) start() *exec.Cmd {
	c := exec.Command(p.bin, "run", "--state-dir", p.state, "--checkpoint-interval", "300ms", p.file)
	c.Stdout, c.Stderr = p.log, p.log
	if err := c.Start(); err != nil {
		p.t.Fatal(err)
	}
	return c
}

// startHTTP starts a run like start, checkpointing every interval and
// serving /metrics on a free loopback address; it returns the metrics URL.
func (p *pipelineRun) startHTTP(interval string) (*exec.Cmd, string) {
	web := freeAddr(p.t)
	c := exec.Command(p.bin, "run", "--state-dir", p.state, "--checkpoint-interval", interval, "--http", web, p.file)
	c.Stdout, c.Stderr = p.log, p.log
	if err := c.Start(); err != nil {
		p.t.Fatal(err)
	}
	return c, "http://" + web + "/metrics"
}

func (p *pipelineRun) logText() string {
	b, _ := os.ReadFile(p.log.Name())
	return string(b)
}

// stop ends a run gracefully and requires a clean exit. It first waits
// until the run has opened its state directory: the run installs its
// SIGTERM handler before that, and a SIGTERM that arrives earlier kills
// the process instead of stopping it.
func (p *pipelineRun) stop(c *exec.Cmd) {
	p.t.Helper()
	p.waitOpened(c)
	_ = c.Process.Signal(syscall.SIGTERM)
	if err := c.Wait(); err != nil {
		p.t.Fatalf("run exited with %v; log:\n%s", err, p.logText())
	}
}

// waitOpened polls the run's open files (Linux /proc) until one is in its
// state directory, failing after a minute.
func (p *pipelineRun) waitOpened(c *exec.Cmd) {
	p.t.Helper()
	fds := fmt.Sprintf("/proc/%d/fd", c.Process.Pid)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		ents, err := os.ReadDir(fds)
		if err != nil {
			p.t.Fatalf("run %d: %v; log:\n%s", c.Process.Pid, err, p.logText())
		}
		for _, e := range ents {
			if l, _ := os.Readlink(filepath.Join(fds, e.Name())); strings.HasPrefix(l, p.state+string(filepath.Separator)) {
				return
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("run %d never opened its state directory; log:\n%s", c.Process.Pid, p.logText())
		}
	}
}

// deadLetters opens the stopped pipeline's state and lists the dead-letter
// table as "partition/offset".
func (p *pipelineRun) deadLetters(t *testing.T) []string {
	t.Helper()
	e, err := engine.Open(engine.Options{StateDir: p.state, Registry: registry(io.Discard)})
	if err != nil {
		t.Fatalf("open state: %v", err)
	}
	defer e.Crash()
	res, err := e.Exec(context.Background(), `SELECT "partition", "offset", source, error FROM bids_dlq`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res.Rows {
		if r[2].S != "bids" || r[3].S == "" {
			t.Errorf("dead letter without source or error: %v", r)
		}
		out = append(out, fmt.Sprintf("%d/%d", r[0].I, r[1].I))
	}
	sort.Strings(out)
	return out
}

// TestKafkaToPostgresExactlyOnceSurvivesKill9 is the connectors issue's
// acceptance run: Kafka (1% malformed records) → tumbling window →
// Postgres with exactly_once, the process killed with SIGKILL at five
// random moments while input is still arriving. The final Postgres table
// must equal the windows computed directly from the topic, row for row,
// and every malformed record must be in the dead-letter table with its
// offset.
func TestKafkaToPostgresExactlyOnceSurvivesKill9(t *testing.T) {
	const n = 40_000
	in, produced := newBidsTopic(t, n, 0.01, 4*time.Second)
	dsn := sharedPostgres(t).DSNFor(sharedPostgres(t).NewDB(t))
	p := newPipelineRun(t, fmt.Sprintf(kafkaToPostgres, in.brokers, dsn, "exactly_once"))
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for i := 0; i < 5; i++ {
		c := p.start()
		time.Sleep(time.Duration(300+rnd.IntN(900)) * time.Millisecond)
		_ = c.Process.Signal(syscall.SIGKILL)
		_ = c.Wait()
		if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("run %d ended before it was killed: %v; log:\n%s", i, c.ProcessState, p.logText())
		}
	}
	if err := <-produced; err != nil {
		t.Fatalf("produce: %v", err)
	}
	in.expect(t, n)
	if len(in.poison) == 0 || in.good == 0 {
		t.Fatalf("input has %d malformed and %d good records; the test needs both", len(in.poison), in.good)
	}
	c := p.start()
	// Postgres may already hold the final answer (the killed runs got far);
	// stop waits until this run has opened its state before ending it.
	waitForRows(t, dsn, volumeQuery, in.wantRows(), 60*time.Second)
	p.stop(c)
	if got := p.deadLetters(t); strings.Join(got, ",") != strings.Join(in.poison, ",") {
		t.Fatalf("dead letters %v, want the %d malformed records %v", got, len(in.poison), in.poison)
	}
	// The dead-letter table's sink delivered each malformed record once,
	// across the kills.
	if got := pgDeadLetters(t, dsn); strings.Join(got, ",") != strings.Join(in.poison, ",") {
		t.Fatalf("Postgres table bids_dlq holds %v, want the %d malformed records %v", got, len(in.poison), in.poison)
	}
}

// pgDeadLetters lists the dead-letter rows the sink wrote to Postgres as
// "partition/offset", sorted, with one entry per row (a duplicate would
// show twice; the table's primary key is the sink's key).
func pgDeadLetters(t *testing.T, dsn string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT "partition", "offset", source, raw, error FROM bids_dlq`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var part, off int64
		var source, raw, msg string
		if err := rows.Scan(&part, &off, &source, &raw, &msg); err != nil {
			t.Fatal(err)
		}
		if source != "bids" || raw == "" || msg == "" {
			t.Errorf("dead letter %d/%d: source %q, raw %q, error %q", part, off, source, raw, msg)
		}
		out = append(out, fmt.Sprintf("%d/%d", part, off))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestPostgresOutageHoldsThePipeline stops Postgres for 10 s mid-run: the
// pipeline must not exit, must lose nothing, and must finish once
// Postgres is back.
func TestPostgresOutageHoldsThePipeline(t *testing.T) {
	const n = 30_000
	in, produced := newBidsTopic(t, n, 0, 3*time.Second)
	srv := sharedPostgres(t)
	dsn := srv.DSNFor(srv.NewDB(t))
	p := newPipelineRun(t, fmt.Sprintf(kafkaToPostgres, in.brokers, dsn, "exactly_once"))
	c := p.start()
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	time.Sleep(1500 * time.Millisecond)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		t.Fatalf("the pipeline exited while Postgres was down: %v; log:\n%s", err, p.logText())
	case <-time.After(10 * time.Second):
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := <-produced; err != nil {
		t.Fatalf("produce: %v", err)
	}
	in.expect(t, n)
	waitForRows(t, dsn, volumeQuery, in.wantRows(), 60*time.Second)
	_ = c.Process.Signal(syscall.SIGTERM)
	if err := <-exited; err != nil {
		t.Fatalf("run exited with %v; log:\n%s", err, p.logText())
	}
}

// throttle is a TCP proxy to addr that forwards at most bytesPerSec in
// each direction: a slow Postgres.
func throttle(t *testing.T, addr string, bytesPerSec int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 4096)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
				time.Sleep(time.Duration(n) * time.Second / time.Duration(bytesPerSec))
			}
			if err != nil {
				break
			}
		}
		dst.Close()
		src.Close()
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			go pipe(up, c)
			go pipe(c, up)
		}
	}()
	return ln.Addr().String()
}

// TestSlowPostgresKeepsMemoryFlat throttles Postgres to a trickle while a
// large Kafka backlog waits: the slow sink must slow the source (the
// engine reads a batch only after the previous one was delivered), so the
// heap stays flat instead of buffering the backlog.
func TestSlowPostgresKeepsMemoryFlat(t *testing.T) {
	const n = 100_000
	in, produced := newBidsTopic(t, n, 0, 0)
	if err := <-produced; err != nil {
		t.Fatalf("produce: %v", err)
	}
	srv := sharedPostgres(t)
	db := srv.NewDB(t)
	slow := throttle(t, fmt.Sprintf("127.0.0.1:%d", srv.Port()), 64<<10)
	dsn := fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", slow, db)
	// One row per auction and second: many upserts per checkpoint.
	sql := fmt.Sprintf(`
CREATE SOURCE bids (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP, extra VARCHAR, WATERMARK FOR date_time AS date_time - INTERVAL '2' SECOND)
WITH (connector = 'kafka', brokers = '%s', topic = 'bids', format = 'json');
CREATE MATERIALIZED VIEW per_auction AS
SELECT auction, window_start, count(*) AS bids FROM TUMBLE(bids, date_time, INTERVAL '1' SECOND)
GROUP BY auction, window_start LATE DATA DROP;
CREATE SINK slow_pg FROM per_auction WITH (connector = 'postgres', dsn = '%s', table = 'per_auction',
  create_table = true, delivery = 'at_least_once', batch_rows = 500);`, in.brokers, dsn)
	e, err := engine.Open(engine.Options{StateDir: t.TempDir(), Registry: registry(io.Discard)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Crash()
	ctx := context.Background()
	if _, err := e.Exec(ctx, sql); err != nil {
		t.Fatal(err)
	}
	base := heapAfterGC()
	peak := base
	var stepped int
	lastCkpt := time.Now()
	for start := time.Now(); time.Since(start) < 6*time.Second; {
		if _, _, err := e.Step(ctx, 4096); err != nil {
			t.Fatal(err)
		}
		stepped++
		if time.Since(lastCkpt) > 500*time.Millisecond {
			if err := e.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			lastCkpt = time.Now()
		}
		peak = max(peak, heapAfterGC())
	}
	upd, _ := e.Stats()
	t.Logf("heap: %d MiB before the run, peak %d MiB; %d steps, %d view changes delivered to a %d KiB/s Postgres", base>>20, peak>>20, stepped, upd, 64)
	if upd == 0 {
		t.Fatal("the pipeline made no progress")
	}
	if grow := int64(peak) - int64(base); grow > 96<<20 {
		t.Fatalf("heap grew by %d MiB behind a slow sink: the backlog is being buffered", grow>>20)
	}
}

func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestKafkaUpsertTopicFeedsTable reads a keyed topic into a TABLE: later
// records replace earlier ones by key and tombstones delete, across a
// restart that resumes from the checkpointed offsets.
func TestKafkaUpsertTopicFeedsTable(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "customers"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("customers"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	produce := func(recs ...[2]string) {
		t.Helper()
		for _, r := range recs {
			rec := &kgo.Record{Key: []byte(r[0])}
			if r[1] != "" {
				rec.Value = []byte(r[1])
			}
			if err := cl.ProduceSync(context.Background(), rec).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	produce([2]string{`{"id":1}`, `{"id":1,"name":"ada","tier":"gold"}`},
		[2]string{`{"id":2}`, `{"id":2,"name":"bob","tier":"silver"}`},
		[2]string{`{"id":1}`, `{"id":1,"name":"ada","tier":"platinum"}`})
	dir := t.TempDir()
	ctx := context.Background()
	open := func() *engine.Engine {
		e, err := engine.Open(engine.Options{StateDir: dir, Registry: registry(io.Discard)})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	// contents polls the table until it holds want: FLUSH only drains
	// what the source has fetched, and the consumer may not have fetched
	// the records yet on a busy machine.
	contents := func(e *engine.Engine, want string) string {
		t.Helper()
		var got string
		for deadline := time.Now().Add(time.Minute); got != want && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := e.Exec(ctx, `FLUSH`); err != nil {
				t.Fatal(err)
			}
			res, err := e.Exec(ctx, `SELECT id, name, tier FROM customers`)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range res.Rows {
				out = append(out, r.String())
			}
			got = strings.Join(out, "; ")
		}
		return got
	}
	e := open()
	if _, err := e.Exec(ctx, fmt.Sprintf(`CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR, tier VARCHAR)
		WITH (connector = 'kafka', brokers = '%s', topic = 'customers', format = 'upsert-json')`, c.ListenAddrs()[0])); err != nil {
		t.Fatal(err)
	}
	if got, want := contents(e, "1 ada platinum; 2 bob silver"), "1 ada platinum; 2 bob silver"; got != want {
		t.Fatalf("table = %q, want %q", got, want)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	produce([2]string{`{"id":2}`, ""}, [2]string{`{"id":3}`, `{"id":3,"name":"cy","tier":"gold"}`})
	e = open()
	defer e.Close()
	if got, want := contents(e, "1 ada platinum; 3 cy gold"), "1 ada platinum; 3 cy gold"; got != want {
		t.Fatalf("after a tombstone and a restart: table = %q, want %q", got, want)
	}
}

// TestExplainConnectsToNothing: explain and check validate a Kafka →
// Postgres file without any service running (no connection, no table
// created) and still name each sink's declared delivery.
func TestExplainConnectsToNothing(t *testing.T) {
	sql := fmt.Sprintf(kafkaToPostgres, "127.0.0.1:1", "postgres://u:pw@127.0.0.1:1/db", "exactly_once")
	file := filepath.Join(t.TempDir(), "p.sql")
	if err := os.WriteFile(file, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(streamsqlBinary(t), "explain", file).CombinedOutput()
	if err != nil {
		t.Fatalf("explain without services: %v\n%s", err, out)
	}
	for _, want := range []string{"sink volume_pg: postgres, exactly-once (as declared; not connected)", "source errors: bids dead_letter → table bids_dlq"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "pw@") {
		t.Errorf("explain shows the DSN's password:\n%s", out)
	}
	bad := strings.Replace(sql, "topic = 'bids'", "topc = 'bids'", 1)
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(streamsqlBinary(t), "check", file).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "did you mean 'topic'?") {
		t.Fatalf("check of a misspelt option: %v\n%s", err, out)
	}
}

// TestViewToKafkaExactlyOnce delivers a view's changelog to a Kafka topic
// with exactly_once through the engine: a read_committed consumer sees
// nothing before the checkpoint, then each key's upsert; after a crash
// before the next checkpoint, the restart's replay is committed once.
// (Tombstones for deletes are tested in connectors/kafka.)
func TestViewToKafkaExactlyOnce(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "totals"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := c.ListenAddrs()[0]
	dir := t.TempDir()
	ctx := context.Background()
	open := func() *engine.Engine {
		e, err := engine.Open(engine.Options{StateDir: dir, Registry: registry(io.Discard)})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	exec := func(e *engine.Engine, q string) {
		t.Helper()
		if _, err := e.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// records reads the topic read_committed: key → last value ("" for a
	// tombstone), and the number of records. It reads until done holds
	// and then a 700 ms poll brings nothing more (so extra records that
	// arrive with the expected ones are counted), failing after a minute.
	records := func(done func(map[string]string, int) bool) (map[string]string, int) {
		t.Helper()
		cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.ConsumeTopics("totals"), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		out := map[string]string{}
		n := 0
		for deadline := time.Now().Add(time.Minute); ; {
			pctx, cancel := context.WithTimeout(ctx, 700*time.Millisecond)
			fs := cl.PollFetches(pctx)
			quiet := pctx.Err() != nil
			cancel()
			fs.EachRecord(func(r *kgo.Record) {
				n++
				out[string(r.Key)] = string(r.Value)
			})
			if quiet && done(out, n) {
				return out, n
			}
			if time.Now().After(deadline) {
				t.Fatalf("the topic never held the expected records; it has %d: %v", n, out)
			}
		}
	}
	anything := func(map[string]string, int) bool { return true }
	e := open()
	exec(e, `CREATE SOURCE s (k BIGINT, v BIGINT)`)
	exec(e, `SET strict = off`)
	exec(e, `CREATE MATERIALIZED VIEW totals AS SELECT k, sum(v) AS total FROM s WHERE v > 0 GROUP BY k`)
	exec(e, fmt.Sprintf(`CREATE SINK totals_kafka FROM totals WITH (connector = 'kafka', brokers = '%s', topic = 'totals', delivery = 'exactly_once')`, brokers))
	exec(e, `INSERT INTO s VALUES (1, 10), (2, 20), (1, 5)`)
	exec(e, `FLUSH`)
	if got, _ := records(anything); len(got) != 0 {
		t.Fatalf("read_committed sees %v before the checkpoint", got)
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	totals := func(k1, k2 int) func(map[string]string, int) bool {
		return func(got map[string]string, _ int) bool {
			return got[`{"k":1}`] == fmt.Sprintf(`{"k":1,"total":%d}`, k1) && got[`{"k":2}`] == fmt.Sprintf(`{"k":2,"total":%d}`, k2)
		}
	}
	got, n := records(totals(15, 20))
	if got[`{"k":1}`] != `{"k":1,"total":15}` || got[`{"k":2}`] != `{"k":2,"total":20}` {
		t.Fatalf("after the checkpoint: %v", got)
	}
	// More changes, then a crash before they are checkpointed: the
	// restart replays the INSERT and commits its effect once.
	exec(e, `INSERT INTO s VALUES (1, 1)`)
	exec(e, `FLUSH`)
	if err := e.Crash(); err != nil {
		t.Fatal(err)
	}
	e = open()
	defer e.Close()
	exec(e, `FLUSH`)
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	got, n2 := records(totals(16, 20))
	if got[`{"k":1}`] != `{"k":1,"total":16}` || n2 != n+1 {
		t.Fatalf("after crash and restart: %v (%d records, had %d: want exactly one more)", got, n2, n)
	}
}

// TestRunWaitsForKafkaAtStart: a pipeline whose Kafka is down when it
// starts waits for it (each attempt logged) instead of exiting; once the
// broker is up the rows arrive. Until then a listener that accepts and
// closes connections stands on the port (as a container's port proxy
// does before its broker is up), which also shows that the source tried.
func TestRunWaitsForKafkaAtStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	tried := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
			select {
			case tried <- struct{}{}:
			default:
			}
		}
	}()
	e, err := engine.Open(engine.Options{StateDir: t.TempDir(), Registry: registry(io.Discard)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Crash()
	ctx := context.Background()
	created := make(chan error, 1)
	go func() {
		_, err := e.Exec(ctx, fmt.Sprintf(`
CREATE SOURCE bids (auction BIGINT, price BIGINT) WITH (connector = 'kafka', brokers = '127.0.0.1:%d', topic = 'bids', format = 'json');
SET strict = off;
CREATE MATERIALIZED VIEW n AS SELECT count(*) AS n FROM bids;`, port))
		created <- err
	}()
	for range 3 { // the source keeps trying
		select {
		case <-tried:
		case err := <-created:
			t.Fatalf("CREATE returned while Kafka was down: %v", err)
		case <-time.After(60 * time.Second):
			t.Fatal("the source never tried to reach the broker")
		}
	}
	_ = ln.Close()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.SeedTopics(1, "bids"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("bids"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := range 3 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, `{"auction":%d,"price":1}`, i)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-created; err != nil {
		t.Fatalf("CREATE once Kafka was up: %v", err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; {
		if _, _, err := e.Step(ctx, 100); err != nil {
			t.Fatal(err)
		}
		res, err := e.Exec(ctx, `SELECT n FROM n`)
		if err == nil && len(res.Rows) == 1 && res.Rows[0][0].I == 3 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the view never counted the 3 bids: %v (%v)", res, err)
		}
	}
}
