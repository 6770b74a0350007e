package main

import (
	"testing"

	"github.com/streamsql/streamsql/sqllogic"
	"github.com/streamsql/streamsql/sqllogic/sqllogictest"
)

// TestSQLLogic runs testdata/sqllogic at parallelism 1 and 4; both must
// pass (results may not depend on parallelism).
func TestSQLLogic(t *testing.T) {
	for _, p := range sltParallelism {
		t.Run("parallelism="+p, func(t *testing.T) {
			sqllogictest.RunTest(t, "../../testdata/sqllogic", sqllogic.Options{
				Opener:   openSLT(discard{}),
				Settings: map[string]string{"parallelism": p},
			})
		})
	}
}
