package engine

import (
	"context"
	"testing"
)

func TestParseMemorySize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1048576", 1 << 20, true},
		{"512MB", 512 << 20, true},
		{"512 mb", 512 << 20, true},
		{"2GB", 2 << 30, true},
		{"2GiB", 2 << 30, true},
		{"64kB", 64 << 10, true},
		{"1536m", 1536 << 20, true},
		{"1t", 1 << 40, true},
		{"100B", 100, true},
		{"", 0, false},
		{"MB", 0, false},
		{"1.5GB", 0, false},
		{"-1", 0, false},
		{"9999999TB", 0, false},
		{"12 apples", 0, false},
	} {
		got, err := parseMemorySize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseMemorySize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestMemoryLimitReachesTheHook: the limit the engine opens with is the
// script's SET, else Settings', else the default, and a later SET hands
// the new value over too.
func TestMemoryLimitReachesTheHook(t *testing.T) {
	def, err := parseMemorySize(defaultMemoryLimit)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		settings map[string]string
		script   string
		want     int64
	}{
		{"default", nil, "", def},
		{"settings", map[string]string{"memory_limit": "1GB"}, "", 1 << 30},
		{"script", map[string]string{"memory_limit": "1GB"}, "SET memory_limit = '64MB';\nSET memory_limit = '200MB';", 200 << 20},
		{"invalid in script", nil, "SET memory_limit = 'lots';", def},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int64
			e, err := Open(Options{StateDir: t.TempDir(), Settings: tc.settings, Script: tc.script, SetMemoryLimit: func(n int64) { got = append(got, n) }})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("at open: %v, want [%d]", got, tc.want)
			}
			if _, err := e.Exec(context.Background(), "SET memory_limit = '3GB'"); err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[1] != 3<<30 {
				t.Fatalf("after SET: %v, want the 3 GB last", got)
			}
		})
	}
}

func TestOpenRefusesABadMemoryLimit(t *testing.T) {
	if _, err := Open(Options{StateDir: t.TempDir(), Settings: map[string]string{"memory_limit": "lots"}}); err == nil {
		t.Fatal("Open with memory_limit 'lots' succeeded")
	}
}
