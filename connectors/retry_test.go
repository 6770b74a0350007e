package connectors

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBackoffDoublesUpToMax(t *testing.T) {
	b := Backoff{Max: time.Second}
	var got []time.Duration
	for range 6 {
		got = append(got, b.Next())
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("waits %v, want %v", got, want)
		}
	}
	var zero Backoff
	for range 10 {
		zero.Next()
	}
	if d := zero.Next(); d != DefaultMaxBackoff {
		t.Errorf("the zero Backoff levels off at %v, want %v", d, DefaultMaxBackoff)
	}
}

func TestWaitEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Wait(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait on a cancelled context: %v", err)
	}
}

// TestOutageLogsEachChangeOnce: however many attempts fail, and from
// however many goroutines, an outage is one warning and its end one note.
func TestOutageLogsEachChangeOnce(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})) // writes one line at a time
	o := NewOutage(log, "thing unreachable", "thing is back", "sink", "s1")
	o.Ok() // no outage yet: nothing to say
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				o.Failed(errors.New("connection refused"), "op", "commit")
			}
		}()
	}
	wg.Wait()
	if !o.Down() {
		t.Fatal("Down after failures = false")
	}
	o.Ok()
	o.Ok()
	if o.Down() {
		t.Fatal("Down after a success = true")
	}
	o.Failed(errors.New("reset"))
	o.Ok()
	if n := o.Failures(); n != 101 {
		t.Errorf("Failures() = %d after 101 failed attempts", n)
	}
	out := buf.String()
	if n := strings.Count(out, "thing unreachable"); n != 2 {
		t.Errorf("%d outage lines for two outages:\n%s", n, out)
	}
	if n := strings.Count(out, "thing is back"); n != 2 {
		t.Errorf("%d recovery lines for two outages:\n%s", n, out)
	}
	for _, want := range []string{"level=WARN", "sink=s1", "op=commit", "attempt=1", `error="connection refused"`, "failed_attempts=100"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
}
