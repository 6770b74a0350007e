// Package conformance is the test list every connector runs: one suite
// for sources and one for sinks, so a connector that passes behaves the
// way the engine's checkpoints assume (resume exactly at stored offsets;
// sinks idempotent by key; exactly-once sinks invisible until Commit and
// recoverable after a crash between PreCommit and Commit).
//
// A connector's package adds a conformance_test.go that describes how to
// set up an empty input or destination and how to read it back, and calls
// RunSource or RunSink. They do: file and kafka (source and sink),
// postgres (sink), and stdout (sink; its test parses the printed
// changelog back into rows).
//
// # Documented exceptions
//
// Two connectors cannot run the suite, because what it needs does not
// exist for them:
//
//   - blackhole (sink) has no destination to read back: it only counts
//     changes. It is covered by the Nexmark harness (bench.TestRunSmall
//     runs every query into it, and `streamsql bench` reports the rows it
//     counted) and by testdata/sqllogic/sink_as_query.slt.
//   - datagen (source) has no input to append to, and every row it makes
//     is well-typed, so there is no poison record to report: its input is
//     the deterministic Nexmark sequence. connectors/datagen/source_test.go
//     covers what the suite would: TestResumeFromOffsets and
//     TestOpenAtAnyOffset (resume exactly at stored offsets),
//     TestPartitionsSplitTheSequence and TestEmptyPartition (partitions),
//     TestBoundedCountsAndEndOfInput (ErrEndOfInput) and
//     TestRowsMatchGenerator (the rows themselves).
//
// The engine's memory source is not a connector package; its log, offsets
// and replay are tested in engine and by the sqllogic suite.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// Schema is the schema every conformance test uses; id is the key.
var Schema = types.Schema{
	{Name: "id", Type: types.Int},
	{Name: "name", Type: types.String},
	{Name: "price", Type: types.Float},
	{Name: "ts", Type: types.Timestamp},
}

// Key is the key of Schema: id.
var Key = []int{0}

// base is the first test timestamp, 2024-01-01 00:00:00 UTC in µs.
const base = int64(1704067200) * 1_000_000

// Row returns the conformance row for id, with a version that changes
// name and price.
func Row(id int64, version int) types.Row {
	return types.Row{
		types.IntValue(id),
		types.StringValue(fmt.Sprintf("n%d-v%d", id, version)),
		types.FloatValue(float64(id) + float64(version)/4),
		types.TimestampValue(base + id*1_000_000),
	}
}

// JSON returns row as the JSON object a source reads.
func JSON(row types.Row) []byte {
	return fmt.Appendf(nil, `{"id":%d,"name":%q,"price":%s,"ts":%q}`,
		row[0].I, row[1].S, types.FormatFloat(row[2].F), types.FormatTimestamp(row[3].I))
}

// SourceTarget describes a source connector under test.
type SourceTarget struct {
	Factory connectors.SourceFactory
	// Setup creates a fresh, empty input with parts partitions and returns
	// the WITH options (including connector and format = json) that read
	// it from the start.
	Setup func(t *testing.T, parts int) map[string]string
	// Append writes records to partition p of the input.
	Append func(t *testing.T, opts map[string]string, p int, records ...[]byte)
	// Bounded sources return ErrEndOfInput once the input is exhausted.
	Bounded bool
	// Partitions is how many partitions Setup can make (0: any number;
	// 1: the connector has a single partition).
	Partitions int
}

// SinkTarget describes a sink connector under test.
type SinkTarget struct {
	Factory connectors.SinkFactory
	// Setup prepares an empty destination and returns the WITH options
	// (including connector) for a sink writing to it.
	Setup func(t *testing.T) map[string]string
	// Read returns the committed contents of the destination with the
	// changes applied by key (upsert replaces, delete removes), in any
	// order.
	Read func(t *testing.T, opts map[string]string) []types.Row
	// ExactlyOnce sinks implement connectors.Recoverer and show nothing
	// before Commit.
	ExactlyOnce bool
}

// readTimeout bounds how long a test waits for a source to produce.
const readTimeout = 20 * time.Second

func (tg SourceTarget) parts() int {
	if tg.Partitions == 1 {
		return 1
	}
	return 2
}

func (tg SourceTarget) open(t *testing.T, opts map[string]string, offsets []int64) connectors.Source {
	t.Helper()
	src, err := tg.Factory.New(context.Background(), connectors.SourceSpec{Name: "conf_src", Schema: Schema, Options: opts, StateDir: t.TempDir()})
	if err != nil {
		t.Fatalf("new source: %v", err)
	}
	if err := src.Open(context.Background(), offsets); err != nil {
		t.Fatalf("open source at %v: %v", offsets, err)
	}
	return src
}

// collected is what a test read from a source.
type collected struct {
	rows  map[int][]types.Row // per partition, in order
	errs  []connectors.DecodeError
	offs  []int64
	nrows int
	ended bool
}

// drain reads from src until want rows and wantErrs poison records were
// seen (and, for a bounded source, until it ends), or the timeout.
func drain(t *testing.T, src connectors.Source, want, wantErrs int, bounded bool, offs []int64) *collected {
	t.Helper()
	c := &collected{rows: map[int][]types.Row{}, offs: slices.Clone(offs)}
	if c.offs == nil {
		c.offs = make([]int64, src.Partitions())
	}
	deadline := time.Now().Add(readTimeout)
	for time.Now().Before(deadline) {
		b, err := src.Read(context.Background(), 3)
		if errors.Is(err, connectors.ErrEndOfInput) {
			c.ended = true
			break
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if len(b.Rows) > 3 {
			t.Fatalf("read(max 3) returned %d rows", len(b.Rows))
		}
		if len(b.Rows) > 0 || len(b.Errors) > 0 {
			if b.Partition < 0 || b.Partition >= src.Partitions() {
				t.Fatalf("batch partition %d out of range [0,%d)", b.Partition, src.Partitions())
			}
			if b.Next <= c.offs[b.Partition] {
				t.Fatalf("partition %d: Next %d does not advance past %d", b.Partition, b.Next, c.offs[b.Partition])
			}
			c.offs[b.Partition] = b.Next
			c.rows[b.Partition] = append(c.rows[b.Partition], b.Rows...)
			c.nrows += len(b.Rows)
			c.errs = append(c.errs, b.Errors...)
			if b.Times != nil && len(b.Times) != len(b.Rows) {
				t.Fatalf("Times has %d entries for %d rows", len(b.Times), len(b.Rows))
			}
		}
		if c.nrows >= want && len(c.errs) >= wantErrs && !bounded {
			break
		}
		if len(b.Rows) == 0 && len(b.Errors) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	return c
}

func sameRows(t *testing.T, what string, got, want []types.Row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d rows, want %d:\n got %v\nwant %v", what, len(got), len(want), got, want)
	}
	for i := range want {
		if got[i].String() != want[i].String() {
			t.Fatalf("%s: row %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// RunSource runs the source conformance tests: open and close an empty
// input, read a batch per partition in order, resume exactly at stored
// offsets, and report a poison record without losing its neighbours.
func RunSource(t *testing.T, tg SourceTarget) {
	t.Run("OpenClose", func(t *testing.T) {
		opts := tg.Setup(t, tg.parts())
		src := tg.open(t, opts, nil)
		if src.Partitions() != tg.parts() {
			t.Fatalf("Partitions() = %d, want %d", src.Partitions(), tg.parts())
		}
		c := drain(t, src, 0, 0, tg.Bounded, nil)
		if c.nrows != 0 || len(c.errs) != 0 {
			t.Fatalf("empty input produced %d rows, %d errors", c.nrows, len(c.errs))
		}
		if tg.Bounded && !c.ended {
			t.Fatal("bounded source did not report ErrEndOfInput on an empty input")
		}
		if err := src.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
	})
	t.Run("Batch", func(t *testing.T) {
		parts := tg.parts()
		opts := tg.Setup(t, parts)
		want := map[int][]types.Row{}
		for p := 0; p < parts; p++ {
			var recs [][]byte
			for i := 0; i < 7; i++ {
				r := Row(int64(p*100+i), 0)
				want[p] = append(want[p], r)
				recs = append(recs, JSON(r))
			}
			tg.Append(t, opts, p, recs...)
		}
		src := tg.open(t, opts, nil)
		defer src.Close()
		c := drain(t, src, 7*parts, 0, tg.Bounded, nil)
		for p := 0; p < parts; p++ {
			sameRows(t, fmt.Sprintf("partition %d", p), c.rows[p], want[p])
		}
		if len(c.errs) != 0 {
			t.Fatalf("good records reported as errors: %v", c.errs[0].Err)
		}
	})
	t.Run("ResumeFromOffsets", func(t *testing.T) {
		parts := tg.parts()
		opts := tg.Setup(t, parts)
		var all []types.Row
		for p := 0; p < parts; p++ {
			var recs [][]byte
			for i := 0; i < 10; i++ {
				r := Row(int64(p*100+i), 1)
				recs = append(recs, JSON(r))
			}
			tg.Append(t, opts, p, recs...)
		}
		for p := 0; p < parts; p++ {
			for i := 0; i < 10; i++ {
				all = append(all, Row(int64(p*100+i), 1))
			}
		}
		// Read about half, as a checkpoint would have, then stop.
		src := tg.open(t, opts, nil)
		first := drain(t, src, 9, 0, false, nil)
		if err := src.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		// More input arrives while the pipeline is down.
		for p := 0; p < parts; p++ {
			r := Row(int64(p*100+50), 1)
			all = append(all, r)
			tg.Append(t, opts, p, JSON(r))
		}
		src = tg.open(t, opts, first.offs)
		defer src.Close()
		rest := drain(t, src, len(all)-first.nrows, 0, tg.Bounded, first.offs)
		var got []types.Row
		for p := 0; p < parts; p++ {
			got = append(got, first.rows[p]...)
			got = append(got, rest.rows[p]...)
		}
		sortByID(got)
		sortByID(all)
		sameRows(t, "rows before and after the resume", got, all)
	})
	t.Run("PoisonRecord", func(t *testing.T) {
		opts := tg.Setup(t, tg.parts())
		good1, good2 := Row(1, 0), Row(2, 0)
		tg.Append(t, opts, 0, JSON(good1), []byte(`{"id": not json`), []byte(`{"id":"x","name":"a","price":1,"ts":"2024-01-01 00:00:00"}`), JSON(good2))
		src := tg.open(t, opts, nil)
		defer src.Close()
		c := drain(t, src, 2, 2, tg.Bounded, nil)
		sameRows(t, "good records around the poison ones", c.rows[0], []types.Row{good1, good2})
		if len(c.errs) != 2 {
			t.Fatalf("got %d decode errors, want 2", len(c.errs))
		}
		for _, e := range c.errs {
			if e.Partition != 0 || e.Err == nil || len(e.Raw) == 0 {
				t.Fatalf("decode error without partition, raw bytes or error: %+v", e)
			}
		}
		if c.errs[0].Offset == c.errs[1].Offset {
			t.Fatalf("two poison records share offset %d", c.errs[0].Offset)
		}
		if string(c.errs[0].Raw) != `{"id": not json` {
			t.Fatalf("raw bytes of the poison record = %q", c.errs[0].Raw)
		}
	})
}

func sortByID(rows []types.Row) {
	slices.SortFunc(rows, func(a, b types.Row) int { return types.Compare(a[0], b[0]) })
}

func (tg SinkTarget) open(t *testing.T, opts map[string]string) connectors.Sink {
	t.Helper()
	s, err := tg.Factory.New(connectors.SinkSpec{Name: "conf_sink", Schema: Schema, Key: Key, Options: opts})
	if err != nil {
		t.Fatalf("new sink: %v", err)
	}
	return s
}

func commit(t *testing.T, s connectors.Sink, id uint64) []byte {
	t.Helper()
	ctx := context.Background()
	staged, err := s.PreCommit(ctx, id)
	if err != nil {
		t.Fatalf("pre-commit %d: %v", id, err)
	}
	if err := s.Commit(ctx, id); err != nil {
		t.Fatalf("commit %d: %v", id, err)
	}
	return staged
}

func write(t *testing.T, s connectors.Sink, changes ...connectors.Change) {
	t.Helper()
	if err := s.Write(context.Background(), changes); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func up(r types.Row) connectors.Change  { return connectors.Change{Op: connectors.Upsert, Row: r} }
func del(r types.Row) connectors.Change { return connectors.Change{Op: connectors.Delete, Row: r} }

func (tg SinkTarget) contents(t *testing.T, what string, opts map[string]string, want ...types.Row) {
	t.Helper()
	got := tg.Read(t, opts)
	sortByID(got)
	want = slices.Clone(want)
	sortByID(want)
	sameRows(t, what, got, want)
}

// RunSink runs the sink conformance tests.
func RunSink(t *testing.T, tg SinkTarget) {
	t.Run("OpenClose", func(t *testing.T) {
		opts := tg.Setup(t)
		s := tg.open(t, opts)
		commit(t, s, 1)
		if err := s.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		tg.contents(t, "an empty checkpoint", opts)
	})
	t.Run("Batch", func(t *testing.T) {
		opts := tg.Setup(t)
		s := tg.open(t, opts)
		defer s.Close()
		write(t, s, up(Row(1, 0)), up(Row(2, 0)), up(Row(3, 0)))
		commit(t, s, 1)
		tg.contents(t, "after one checkpoint", opts, Row(1, 0), Row(2, 0), Row(3, 0))
	})
	t.Run("UpsertAndDelete", func(t *testing.T) {
		opts := tg.Setup(t)
		s := tg.open(t, opts)
		defer s.Close()
		write(t, s, up(Row(1, 0)), up(Row(2, 0)), up(Row(3, 0)))
		commit(t, s, 1)
		write(t, s, up(Row(1, 1)), del(Row(2, 0)))
		commit(t, s, 2)
		tg.contents(t, "after an upsert and a delete", opts, Row(1, 1), Row(3, 0))
	})
	t.Run("SameKeyTwiceInOneCheckpoint", func(t *testing.T) {
		opts := tg.Setup(t)
		s := tg.open(t, opts)
		defer s.Close()
		write(t, s, up(Row(1, 0)), up(Row(2, 0)))
		write(t, s, up(Row(1, 1)), del(Row(2, 0)), up(Row(2, 2)), up(Row(1, 3)))
		write(t, s, up(Row(4, 0)), del(Row(4, 0)))
		commit(t, s, 1)
		tg.contents(t, "keys changed several times in one checkpoint", opts, Row(1, 3), Row(2, 2))
	})
	t.Run("ResumeIsIdempotent", func(t *testing.T) {
		// After a restart the engine replays the changes since its last
		// checkpoint; writing them again must not change the result.
		opts := tg.Setup(t)
		s := tg.open(t, opts)
		write(t, s, up(Row(1, 0)), up(Row(2, 0)))
		commit(t, s, 1)
		write(t, s, up(Row(2, 1)), up(Row(3, 0)))
		commit(t, s, 2)
		if err := s.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		s = tg.open(t, opts)
		defer s.Close()
		if r, ok := s.(connectors.Recoverer); ok {
			// Checkpoint 2 was committed: recovering it again is a no-op.
			if err := r.Recover(context.Background(), 2, connectors.EncodeChanges([]connectors.Change{up(Row(2, 1)), up(Row(3, 0))})); err != nil {
				t.Fatalf("recover an already committed checkpoint: %v", err)
			}
		}
		write(t, s, up(Row(2, 1)), up(Row(3, 0)), up(Row(4, 0)))
		commit(t, s, 3)
		tg.contents(t, "after replaying changes", opts, Row(1, 0), Row(2, 1), Row(3, 0), Row(4, 0))
	})
	t.Run("CrashBetweenPreCommitAndCommit", func(t *testing.T) {
		opts := tg.Setup(t)
		s := tg.open(t, opts)
		write(t, s, up(Row(1, 0)))
		commit(t, s, 1)
		write(t, s, up(Row(1, 1)), up(Row(2, 0)))
		staged, err := s.PreCommit(context.Background(), 2)
		if err != nil {
			t.Fatalf("pre-commit: %v", err)
		}
		// The process dies here: Commit(2) never runs.
		_ = s.Close()
		if !tg.ExactlyOnce {
			// An at-least-once sink may show checkpoint 2 already; the
			// engine replays it, which must converge.
			s = tg.open(t, opts)
			defer s.Close()
			write(t, s, up(Row(1, 1)), up(Row(2, 0)))
			commit(t, s, 2)
			tg.contents(t, "after the replay", opts, Row(1, 1), Row(2, 0))
			return
		}
		if staged == nil {
			t.Fatal("an exactly-once sink returned no staged changes from PreCommit")
		}
		tg.contents(t, "before Commit", opts, Row(1, 0))
		for i := 0; i < 2; i++ {
			s = tg.open(t, opts)
			r, ok := s.(connectors.Recoverer)
			if !ok {
				t.Fatal("an exactly-once sink does not implement connectors.Recoverer")
			}
			if err := r.Recover(context.Background(), 2, staged); err != nil {
				t.Fatalf("recover %d: %v", i, err)
			}
			tg.contents(t, fmt.Sprintf("after recovery %d", i+1), opts, Row(1, 1), Row(2, 0))
			if i == 1 {
				write(t, s, up(Row(3, 0)))
				commit(t, s, 3)
				tg.contents(t, "after the next checkpoint", opts, Row(1, 1), Row(2, 0), Row(3, 0))
			}
			if err := s.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
		}
	})
}
