package sqllogic

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// RunPaths runs the given .slt files and folders (searched recursively for
// *.slt, in sorted order) one after another and writes to out, per file,
// "PASS path (N records)" or "FAIL path" followed by each failure's
// report, then a summary line. It returns whether every file passed; err
// is set for paths that cannot be read, an empty selection, a done ctx or
// a failed write to out.
func RunPaths(ctx context.Context, paths []string, opts Options, out io.Writer) (allPassed bool, err error) {
	files, err := Files(paths)
	if err != nil {
		return false, err
	}
	if len(files) == 0 {
		return false, fmt.Errorf("no .slt files in %s", strings.Join(paths, ", "))
	}
	w := &errWriter{w: out}
	failed := 0
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return false, fmt.Errorf("sqllogic run stopped before %s: %w", f, err)
		}
		res := RunFile(ctx, f, opts)
		if res.Passed {
			w.printf("PASS %s (%d records)\n", f, res.Records)
			continue
		}
		failed++
		w.printf("FAIL %s\n", f)
		for _, fl := range res.Failures {
			w.printf("%s\n", indentReport(fl.Report(f)))
		}
	}
	if failed == 0 {
		w.printf("ok: %d files passed\n", len(files))
	} else {
		w.printf("FAIL: %d of %d files failed\n", failed, len(files))
	}
	if w.err != nil {
		return false, fmt.Errorf("write sqllogic report: %w", w.err)
	}
	return failed == 0, nil
}

// Files expands paths: a file is taken as is, a folder yields its
// *.slt files, recursively, sorted.
func Files(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("sqllogic: %w", err)
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".slt") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("sqllogic: walk %s: %w", p, err)
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	return files, nil
}

// indentReport indents a failure report by two spaces under its FAIL line.
func indentReport(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// errWriter keeps the first write error so the report code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
