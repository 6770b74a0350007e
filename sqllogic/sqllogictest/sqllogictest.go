// Package sqllogictest runs .slt files as Go subtests: the testing half
// of the sqllogic runner, kept apart so that the streamsql binary, which
// imports sqllogic for `streamsql test`, does not link testing.
package sqllogictest

import (
	"path/filepath"
	"testing"

	"github.com/streamsql/streamsql/sqllogic"
)

// RunTest runs every .slt file under dir (recursively) as a parallel
// subtest named by its path relative to dir, reporting each failure with
// t.Errorf in the same text sqllogic.RunPaths prints. A dir without .slt
// files is a test failure: a suite that runs nothing is a mistake.
func RunTest(t *testing.T, dir string, opts sqllogic.Options) {
	t.Helper()
	files, err := sqllogic.Files([]string{dir})
	if err != nil {
		t.Fatalf("sqllogic: %v", err)
	}
	if len(files) == 0 {
		t.Fatalf("sqllogic: no .slt files under %s", dir)
	}
	for _, f := range files {
		name, err := filepath.Rel(dir, f)
		if err != nil || name == "." {
			name = filepath.Base(f)
		}
		t.Run(filepath.ToSlash(name), func(t *testing.T) {
			t.Parallel()
			res := sqllogic.RunFile(t.Context(), f, opts)
			for _, fl := range res.Failures {
				t.Errorf("%s", fl.Report(f))
			}
		})
	}
}
