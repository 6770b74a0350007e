package sqllogic

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// DefaultEngine is the engine name skipif/onlyif compare with when
// Options.Engine is empty.
const DefaultEngine = "streamsql"

// Options configures a run.
type Options struct {
	// Opener opens the engine for each file, and reopens it after
	// `restart` and `crash`.
	Opener Opener
	// Settings are passed to every Opener call, e.g. {"parallelism": "4"}.
	Settings map[string]string
	// Engine is the name `skipif` and `onlyif` match (case-insensitively);
	// DefaultEngine when empty.
	Engine string
}

// FileResult is the outcome of one .slt file.
type FileResult struct {
	Path   string
	Passed bool
	// Records counts the statements, queries and restart/crash/checkpoint
	// directives that ran (skipped records and halt/hash-threshold are not
	// counted).
	Records  int
	Failures []Failure
}

// RunFile runs one .slt file against a fresh engine opened by
// opts.Opener on a new temporary state directory, which it removes
// afterwards. A failing record does not stop the file; a syntax error,
// an engine that cannot be (re)opened, an engine panic or ctx being done
// do.
func RunFile(ctx context.Context, path string, opts Options) (res FileResult) {
	res.Path = path
	defer func() { res.Passed = len(res.Failures) == 0 }()
	src, err := os.ReadFile(path)
	if err != nil {
		res.Failures = append(res.Failures, Failure{Err: fmt.Errorf("read test file: %w", err)})
		return res
	}
	recs, err := parse(string(src))
	if err != nil {
		var pe *parseError
		if errors.As(err, &pe) {
			res.Failures = append(res.Failures, Failure{Line: pe.line, Err: fmt.Errorf("syntax error: %s", pe.msg)})
		} else {
			res.Failures = append(res.Failures, Failure{Err: fmt.Errorf("syntax error: %w", err)})
		}
		return res
	}
	if opts.Opener == nil {
		res.Failures = append(res.Failures, Failure{Err: errors.New("sqllogic: Options.Opener is nil")})
		return res
	}
	dir, err := os.MkdirTemp("", "sqllogic-"+strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+"-*")
	if err != nil {
		res.Failures = append(res.Failures, Failure{Err: fmt.Errorf("create state directory: %w", err)})
		return res
	}
	defer func() {
		if err := os.RemoveAll(dir); err != nil {
			res.Failures = append(res.Failures, Failure{Err: fmt.Errorf("remove state directory: %w", err)})
		}
	}()
	r := &runner{ctx: ctx, opts: opts, dir: dir, res: &res, labels: map[string]labelResult{}}
	if r.opts.Engine == "" {
		r.opts.Engine = DefaultEngine
	}
	r.run(recs)
	return res
}

// runner holds the state of one file's run.
type runner struct {
	ctx           context.Context
	opts          Options
	dir           string
	db            DB // nil once the engine is gone for good
	hashThreshold int
	labels        map[string]labelResult
	res           *FileResult
}

// labelResult remembers the first result seen for a query label.
type labelResult struct {
	line int
	hash string
}

func (r *runner) fail(f Failure) { r.res.Failures = append(r.res.Failures, f) }

// run executes the records in order and closes the engine at the end.
func (r *runner) run(recs []record) {
	if !r.open(0) {
		return
	}
	defer r.closeAtEnd()
	for _, rec := range recs {
		h := rec.header()
		if err := r.ctx.Err(); err != nil {
			r.fail(Failure{Line: h.line, Err: fmt.Errorf("run stopped: %w", err)})
			return
		}
		if !r.applies(h.conds) {
			continue
		}
		switch rec := rec.(type) {
		case *statement:
			r.res.Records++
			r.statement(rec)
		case *query:
			r.res.Records++
			r.query(rec)
		case *directive:
			if !r.directive(rec) {
				return
			}
		}
		if r.db == nil {
			return
		}
	}
}

// applies reports whether a record with these conditions runs on this engine.
func (r *runner) applies(conds []condition) bool {
	for _, c := range conds {
		if strings.EqualFold(c.engine, r.opts.Engine) == c.skip {
			return false
		}
	}
	return true
}

// open (re)opens the engine on the state directory; on failure it
// records the failure at line and returns false.
func (r *runner) open(line int) bool {
	var db DB
	err := protect(func() error {
		var err error
		db, err = r.opts.Opener(r.dir, maps.Clone(r.opts.Settings))
		return err
	})
	if err == nil && db == nil {
		err = errors.New("the Opener returned a nil DB")
	}
	if err != nil {
		r.fail(Failure{Line: line, Err: fmt.Errorf("open engine on %s: %w", r.dir, err)})
		return false
	}
	r.db = db
	return true
}

// closeAtEnd closes the engine cleanly after the last record.
func (r *runner) closeAtEnd() {
	if r.db == nil {
		return
	}
	if err := protect(r.db.Close); err != nil {
		r.fail(Failure{Err: fmt.Errorf("close engine at end of file: %w", err)})
	}
	r.db = nil
}

// panicError is an engine panic turned into an error.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v\n%s", e.value, e.stack) }

// protect calls fn, turning a panic into a *panicError.
func protect(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return fn()
}

// exec runs sql on the engine. After a panic it reports the failure and
// drops the engine (its state is unknown), leaving r.db nil.
func (r *runner) exec(line int, sql string) (res *Result, err error) {
	err = protect(func() error {
		var err error
		res, err = r.db.Exec(r.ctx, sql)
		return err
	})
	var pe *panicError
	if errors.As(err, &pe) {
		r.fail(Failure{Line: line, SQL: sql, Err: fmt.Errorf("engine panicked; remaining records not run: %w", err)})
		_ = protect(r.db.Crash) // best effort: release the files before the directory is removed
		r.db = nil
		return nil, nil
	}
	return res, err
}

// statement runs a statement record and checks its outcome.
func (r *runner) statement(st *statement) {
	res, err := r.exec(st.line, st.sql)
	if r.db == nil {
		return
	}
	if st.expect == expectError {
		r.checkError(st.line, st.sql, st.pattern, st.re, err)
		return
	}
	if err != nil {
		r.fail(Failure{Line: st.line, SQL: st.sql, Expected: "ok", Actual: "error: " + err.Error(),
			Err: fmt.Errorf("statement failed: %w", err)})
		return
	}
	if st.expect == expectCount {
		if n := RowsAffected(res); n != st.count {
			r.fail(Failure{Line: st.line, SQL: st.sql, Expected: strconv.FormatInt(st.count, 10), Actual: strconv.FormatInt(n, 10),
				Err: fmt.Errorf("statement count: got %d rows, want %d", n, st.count)})
		}
	}
}

// checkError checks that err is an error whose text matches re (any error
// when re is nil).
func (r *runner) checkError(line int, sql, pattern string, re *regexp.Regexp, err error) {
	want := "an error"
	if pattern != "" {
		want = "an error matching /" + pattern + "/"
	}
	switch {
	case err == nil:
		r.fail(Failure{Line: line, SQL: sql, Expected: want, Actual: "ok",
			Err: fmt.Errorf("expected %s, but it succeeded", want)})
	case pattern != "" && !re.MatchString(err.Error()):
		r.fail(Failure{Line: line, SQL: sql, Expected: want, Actual: err.Error(),
			Err: fmt.Errorf("error does not match /%s/: %w", pattern, err)})
	}
}

// query runs a query record and compares its result with the expected lines.
func (r *runner) query(q *query) {
	res, err := r.exec(q.line, q.sql)
	if r.db == nil {
		return
	}
	if q.isError {
		r.checkError(q.line, q.sql, q.pattern, q.re, err)
		return
	}
	if err != nil {
		r.fail(Failure{Line: q.line, SQL: q.sql, Expected: strings.Join(q.expected, "\n"), Actual: "error: " + err.Error(),
			Err: fmt.Errorf("query failed: %w", err)})
		return
	}
	if res == nil {
		res = &Result{}
	}
	if err := checkShape(q.types, res); err != nil {
		r.fail(Failure{Line: q.line, SQL: q.sql, Err: err})
		return
	}
	values, lines := sortValues(formatRows(res.Rows, q.types, zoneOf(res.TimeZone)), q.sort, len(q.types))
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	hash := hashLine(values)
	expected, actual := slices.Clone(q.expected), lines
	switch {
	case isHashLine(expected):
		expected[0] = strings.TrimSpace(expected[0])
		actual = []string{hash}
	case r.hashThreshold > 0 && len(values) > r.hashThreshold:
		actual = []string{hash}
	case q.sort == rowSort:
		slices.Sort(expected)
	}
	if !slices.Equal(expected, actual) {
		r.fail(Failure{Line: q.line, SQL: q.sql, Expected: strings.Join(expected, "\n"), Actual: strings.Join(actual, "\n"),
			Diff: unifiedDiff(expected, actual), Err: errors.New("query result mismatch")})
		return
	}
	r.checkLabel(q, hash)
}

// checkShape reports a result whose column count differs from the
// query's type letters.
func checkShape(typeLetters string, res *Result) error {
	n := len(typeLetters)
	if len(res.Schema) > 0 && len(res.Schema) != n {
		return fmt.Errorf("wrong column count: query declares %d columns (%s) but the result has %d (%s)",
			n, typeLetters, len(res.Schema), strings.Join(res.Schema.Names(), ", "))
	}
	for i, row := range res.Rows {
		if len(row) != n {
			return fmt.Errorf("wrong column count: query declares %d columns (%s) but result row %d has %d values (%s)",
				n, typeLetters, i+1, len(row), types.Row(row).String())
		}
	}
	return nil
}

// checkLabel checks that queries sharing a label return the same values.
func (r *runner) checkLabel(q *query, hash string) {
	if q.label == "" {
		return
	}
	prev, seen := r.labels[q.label]
	if !seen {
		r.labels[q.label] = labelResult{line: q.line, hash: hash}
		return
	}
	if prev.hash != hash {
		r.fail(Failure{Line: q.line, SQL: q.sql, Expected: prev.hash, Actual: hash,
			Err: fmt.Errorf("label %q: result differs from the query at line %d", q.label, prev.line)})
	}
}

// directive runs a control record; it returns false when the file must
// stop (halt, or an engine that could not be reopened).
func (r *runner) directive(d *directive) bool {
	switch d.kind {
	case dirHalt:
		return false
	case dirHashThreshold:
		r.hashThreshold = d.n
		return true
	case dirCheckpoint:
		r.res.Records++
		if err := protect(r.db.Checkpoint); err != nil {
			r.fail(Failure{Line: d.line, Err: fmt.Errorf("checkpoint: %w", err)})
		}
		return true
	case dirRestart, dirCrash:
		r.res.Records++
		stop := r.db.Close
		if d.kind == dirCrash {
			stop = r.db.Crash
		}
		if err := protect(stop); err != nil {
			r.fail(Failure{Line: d.line, Err: fmt.Errorf("%s: stop engine: %w", d.kind, err)})
		}
		r.db = nil
		return r.open(d.line)
	}
	return true
}
