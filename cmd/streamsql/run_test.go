package main

import (
	"testing"
	"time"
)

// TestCheckpointIntervalFlag: run passes --checkpoint-interval on only
// when it is given, so that otherwise the pipeline file's SET
// checkpoint_interval applies (engine.RunOptions' zero value).
func TestCheckpointIntervalFlag(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 0},
		{[]string{"--checkpoint-interval", "3s"}, 3 * time.Second},
		{[]string{"--checkpoint-interval=10s"}, 10 * time.Second},
	} {
		cmd := runCmd(&dir)
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := checkpointInterval(cmd); got != tc.want {
			t.Errorf("run %v: interval %v, want %v", tc.args, got, tc.want)
		}
	}
}
