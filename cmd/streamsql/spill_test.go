package main

import (
	"testing"

	"github.com/streamsql/streamsql/sqllogic"
	"github.com/streamsql/streamsql/sqllogic/sqllogictest"
)

// TestSQLLogicSpilling runs the whole slt suite with a window state budget
// of one window per operator instance, so nearly every window's values
// live in Badger (checkpoint or spill area) between batches; the results
// must be the same as fully in memory.
func TestSQLLogicSpilling(t *testing.T) {
	sqllogictest.RunTest(t, "../../testdata/sqllogic", sqllogic.Options{
		Opener:   openSLT(discard{}),
		Settings: map[string]string{"parallelism": "2", "state_cache_size": "1"},
	})
}
