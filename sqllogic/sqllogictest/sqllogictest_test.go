package sqllogictest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/sqllogic"
	"github.com/streamsql/streamsql/types"
)

// oneDB answers "SELECT one" with 1 and accepts any statement.
type oneDB struct{}

func (oneDB) Exec(_ context.Context, sql string) (*sqllogic.Result, error) {
	if sql == "SELECT one" {
		return &sqllogic.Result{Schema: types.Schema{{Name: "c1"}}, Rows: []types.Row{{types.IntValue(1)}}}, nil
	}
	return nil, nil
}
func (oneDB) Close() error      { return nil }
func (oneDB) Crash() error      { return nil }
func (oneDB) Checkpoint() error { return nil }

// TestRunTest runs a folder of two files (one in a subfolder) as
// subtests, each against an engine of its own.
func TestRunTest(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"x/one.slt": "statement ok\nA\n", "two.slt": "query I\nSELECT one\n----\n1\n"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var dirs []string
	open := func(dir string, _ map[string]string) (sqllogic.DB, error) {
		mu.Lock()
		defer mu.Unlock()
		dirs = append(dirs, dir)
		return oneDB{}, nil
	}
	t.Run("suite", func(t *testing.T) {
		RunTest(t, dir, sqllogic.Options{Opener: open, Settings: map[string]string{"parallelism": "1"}})
	})
	if len(dirs) != 2 || dirs[0] == dirs[1] {
		t.Errorf("want one engine per file, got opens on %v", dirs)
	}
}
