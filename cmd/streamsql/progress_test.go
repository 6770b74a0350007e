package main

import (
	"testing"
	"time"

	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/lateness"
)

// TestRenderBar: the bar fills with the fraction read, the ETA follows
// from the elapsed time and the fraction, the tail shows when it fits,
// and a narrow terminal drops the bar rather than wrap.
func TestRenderBar(t *testing.T) {
	for _, tc := range []struct {
		width   int
		frac    float64
		rate    float64
		elapsed time.Duration
		want    string
	}{
		{120, 0.25, 12345, 30 * time.Second, " 25% [##########..............................] 12.3k rows/s  30s  ETA 1m30s  watermark x"},
		{80, 0.25, 12345, 30 * time.Second, " 25% [##########..............................] 12.3k rows/s  30s  ETA 1m30s"},
		{120, 0, 0, 0, "  0% [........................................] 0 rows/s  0s  ETA -  watermark x"},
		{120, 1, 2.5e7, 90 * time.Second, "100% [########################################] 25.0M rows/s  1m30s  ETA 0s  watermark x"},
		{40, 0.5, 10, 1500 * time.Millisecond, " 50% 10 rows/s  1.5s  ETA 1.5s"},
	} {
		if got := renderBar(tc.width, tc.frac, tc.rate, tc.elapsed, "watermark x"); got != tc.want {
			t.Errorf("renderBar(%d, %v, %v, %v):\n got %q\nwant %q", tc.width, tc.frac, tc.rate, tc.elapsed, got, tc.want)
		}
		if got := renderBar(tc.width, tc.frac, tc.rate, tc.elapsed, "watermark x"); len(got) > tc.width {
			t.Errorf("width %d: %d columns drawn", tc.width, len(got))
		}
	}
}

// TestProgressOf: a source's own progress counts (file bytes, datagen
// events), a source with consumer lag counts records read over read and
// left, the slowest source sets the fraction, and one source that knows
// neither turns the bar off.
func TestProgressOf(t *testing.T) {
	file := engine.SourceStats{Source: "f", Done: 30, Total: 100, Partitions: []engine.PartitionStats{{Read: 3}}}
	kafka := engine.SourceStats{Source: "k", Partitions: []engine.PartitionStats{{Read: 60, Lag: 20, HasLag: true}, {Read: 20, Lag: 0, HasLag: true}}}
	memory := engine.SourceStats{Source: "m", Partitions: []engine.PartitionStats{{Read: 5}}}
	for _, tc := range []struct {
		sources []engine.SourceStats
		want    float64
		ok      bool
	}{
		{[]engine.SourceStats{file}, 0.3, true},
		{[]engine.SourceStats{kafka}, 0.8, true},
		{[]engine.SourceStats{kafka, file}, 0.3, true},
		{[]engine.SourceStats{kafka, memory}, 0, false},
		{nil, 0, false},
	} {
		got, ok := progressOf(engine.Snapshot{Sources: tc.sources})
		if ok != tc.ok || got != tc.want {
			t.Errorf("%d sources: %v %v, want %v %v", len(tc.sources), got, ok, tc.want, tc.ok)
		}
	}
}

// TestFiguresOf: the summary's counts come from the engine's figures; a
// source two views read counts once.
func TestFiguresOf(t *testing.T) {
	src := func(pipeline string) engine.SourceStats {
		return engine.SourceStats{Pipeline: pipeline, Source: "s", OnError: "dead_letter", DecodeErrors: 2,
			Partitions: []engine.PartitionStats{{Read: 4}, {Read: 3}}}
	}
	late := map[lateness.LateKey]int64{{Policy: "drop", Reason: "late"}: 2, {Policy: "update", Reason: "late"}: 1}
	s := engine.Snapshot{Sources: []engine.SourceStats{src("v1"), src("v2"), {Source: "t", OnError: "skip", DecodeErrors: 5}},
		Views: []engine.ViewStats{{Name: "v1", RowsOut: 10, Late: late}, {Name: "v2", RowsOut: 1}},
		Sinks: []engine.SinkStats{{Rows: 8}, {Rows: 1}}}
	want := runFigures{read: 7, late: 3, deadLettered: 2, skipped: 5, written: 9, changes: 11}
	if got := figuresOf(s); got != want {
		t.Fatalf("figures %+v, want %+v", got, want)
	}
}
