package lateness

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

func TestGeneratorMinOverPartitions(t *testing.T) {
	g := NewGenerator(2, 2, 0, 0)
	if wm := g.Observe(0, 100, 0); wm != types.MinTime {
		t.Fatalf("one partition silent: watermark %d, want MinTime", wm)
	}
	if wm := g.Observe(1, 50, 0); wm != 48 {
		t.Fatalf("watermark %d, want 48 (min of 98, 48)", wm)
	}
	if wm := g.Observe(1, 10, 0); wm != 48 {
		t.Fatalf("watermark moved back to %d", wm)
	}
	if wm := g.Observe(1, 200, 0); wm != 98 {
		t.Fatalf("watermark %d, want 98", wm)
	}
}

func TestGeneratorIdlePartitionExcluded(t *testing.T) {
	g := NewGenerator(2, 0, 10, 0)
	g.Observe(0, 100, 5)
	if wm := g.Tick(9); wm != types.MinTime {
		t.Fatalf("before idle timeout: %d", wm)
	}
	if wm := g.Tick(12); wm != 100 {
		t.Fatalf("partition 1 idle since 0: watermark %d, want 100", wm)
	}
}

func TestGeneratorGrow(t *testing.T) {
	g := NewGenerator(1, 0, 10, 0)
	g.Observe(0, 100, 0)
	g.Grow(2, 5)
	if n := g.Partitions(); n != 2 {
		t.Fatalf("after Grow(2): %d partitions", n)
	}
	if wm := g.Observe(0, 150, 6); wm != 100 {
		t.Fatalf("a new silent partition: watermark %d, want 100 (held, never back)", wm)
	}
	if wm := g.Observe(1, 120, 7); wm != 120 {
		t.Fatalf("the new partition at 120: watermark %d, want 120", wm)
	}
	g.Grow(3, 8)
	if wm := g.Tick(17); wm != 120 {
		t.Fatalf("the third partition, silent, not yet idle: watermark %d, want 120", wm)
	}
	if wm := g.Tick(18); wm != 150 {
		t.Fatalf("every partition idle: watermark %d, want 150 (the max)", wm)
	}
	g.Grow(2, 20) // never shrinks
	if n := g.Partitions(); n != 3 {
		t.Fatalf("Grow(2) after 3: %d partitions", n)
	}
}

func TestJudgeAndDecide(t *testing.T) {
	cases := []struct {
		end, lateness, wm int64
		verdict           Verdict
		policy            Policy
		action            Action
	}{
		{10, 0, 9, OnTime, Drop, Apply},
		{10, 0, 10, Expired, Drop, Discard},
		{10, 5, 12, Late, Drop, Discard},
		{10, 5, 12, Late, Update, Apply},
		{10, 5, 12, Late, SideOutput, Side},
		{10, 5, 15, Expired, Update, Discard},
		{10, 5, 15, Expired, UpdateSideOutput, Side},
		{10, 5, 15, Expired, SideOutput, Side},
		{10, 5, 14, Late, UpdateSideOutput, Apply},
	}
	for _, c := range cases {
		v := Judge(c.end, c.lateness, c.wm)
		if v != c.verdict {
			t.Errorf("Judge(%d,%d,%d) = %d, want %d", c.end, c.lateness, c.wm, v, c.verdict)
		}
		if a := Decide(v, c.policy); a != c.action {
			t.Errorf("Decide(%d,%s) = %d, want %d", v, c.policy, a, c.action)
		}
	}
}
