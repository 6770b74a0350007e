// Package layering holds the test that keeps the folder layout the
// architecture: a statement flows parser → planner → exec, a row flows
// source → operators → sink in exec (operators_test.go: the engine
// calls no connector's Read or Write), and no package imports one above
// it.
package layering

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/streamsql/streamsql/"

// order is the import order, as data. A line "a, b < c, d" lets c and d
// import a and b and everything a and b may import; NONE is nothing. A
// name in capitals is a group, not a package: it stands for what its
// line lists. Every package of the module is named on the right of one
// line, so a new package has to be placed; external modules are free
// except those named as groups below (TIDB, BADGER). A group with a
// rule (TIDB, BADGER, CONNECTORS) is fenced: it is not inherited, only
// the lines that name it let a package import it.
//
// The rules it encodes:
//   - types and sqlerr import nothing; catalog, lateness and funcs (the
//     other leaves) import only them.
//   - parser → planner → exec: only parser and planner see TIDB's AST;
//     exec consumes plans and speaks the connectors' changelog
//     (connectors.Change); engine runs them; the wire server, metrics and
//     dashboard sit on the engine.
//   - each connector imports the connectors interface package (and the
//     shared formats); only cmd and bench wire the CONNECTORS (the
//     concrete ones).
//   - only exec/state opens BADGER.
//
// Test files sit above their package and may import what they need,
// except TIDB, which only the tests of parser and planner use (see
// testRules).
const order = `
NONE < types, sqlerr, internal/pgserver, internal/benchrate;
types < catalog, lateness, sqllogic;
types, sqlerr < funcs, connectors;
funcs < pgwire/pgcatalog;

github.com/pingcap/tidb < TIDB;
types, sqlerr, TIDB < parser;
parser, catalog, funcs, lateness, TIDB < planner;

github.com/dgraph-io/badger < BADGER;
types, BADGER < exec/state;
planner, exec/state, connectors < exec;

connectors < connectors/format, connectors/blackhole, connectors/datagen, connectors/postgres;
connectors/format < connectors/file, connectors/kafka, connectors/stdout;
connectors/blackhole, connectors/datagen, connectors/file, connectors/kafka, connectors/postgres, connectors/stdout < CONNECTORS;

exec, connectors < engine;
engine, pgwire/pgcatalog < pgwire;
engine < metrics, dashboard;
engine, CONNECTORS < bench;
bench, dashboard, metrics, pgwire, sqllogic, internal/pgserver, CONNECTORS < cmd/streamsql;

# test-only packages: never linked into the binary (cmd/streamsql/deps_test.go)
connectors < connectors/conformance;
internal/pgserver < internal/pgtest;
sqllogic < sqllogic/sqllogictest;
NONE < difftest;  # test files only (its doc.go imports nothing)
`

// testRules name the groups test files may import only from the listed
// packages: a test that needs TiDB's AST belongs with the parser or the
// planner.
var testRules = map[string][]string{
	"TIDB": {"parser", "planner"},
}

// rule is the reason a group or package is fenced, for failure messages.
var rule = map[string]string{
	"TIDB":       "only parser and planner see TiDB's AST (parser → planner → exec)",
	"BADGER":     "only exec/state opens Badger",
	"CONNECTORS": "only cmd and bench wire concrete connectors; the rest sees the connectors interface package",
}

// knownByName lists the places, as "file: name", that compare a value
// with a concrete connector's name outside cmd, bench and the connectors,
// with why they may. Each is a debt or a word that only looks like a
// connector; the check fails on any other.
var knownByName = map[string]string{}

// leaves are the packages under everything: they import only each other.
var leaves = []string{"types", "sqlerr", "catalog", "lateness", "funcs"}

// layers is the parsed order: who may import what.
type layers struct {
	allowed map[string]map[string]bool // package or group → what it may import
	groups  map[string][]string        // group → its members, or an external module's prefix
	placed  map[string]bool            // names on the right of a line
	used    map[string]bool            // the knownByName entries found
}

func parseOrder(t *testing.T, text string) layers {
	l := layers{allowed: map[string]map[string]bool{}, groups: map[string][]string{}, placed: map[string]bool{}, used: map[string]bool{}}
	for _, stmt := range strings.Split(text, ";") {
		var lines []string
		for _, line := range strings.Split(stmt, "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				lines = append(lines, line)
			}
		}
		if len(lines) == 0 {
			continue
		}
		lo, hi, ok := strings.Cut(strings.Join(lines, " "), "<")
		if !ok {
			t.Fatalf("order: %q has no <", stmt)
		}
		los, his := names(lo), names(hi)
		for _, h := range his {
			if l.placed[h] {
				t.Fatalf("order: %s is on the right of two lines", h)
			}
			l.placed[h] = true
			set := map[string]bool{}
			for _, x := range los {
				if x == "NONE" {
					continue
				}
				if !isGroup(x) && !strings.Contains(x, ".") && !l.placed[x] {
					t.Fatalf("order: %s is used before its line", x)
				}
				set[x] = true
				for y := range l.allowed[x] {
					if !l.fenced(y) {
						set[y] = true
					}
				}
			}
			l.allowed[h] = set
			if isGroup(h) {
				l.groups[h] = los
			}
		}
	}
	return l
}

func names(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// fenced reports whether n is a group with a rule, or a member of one:
// it is not inherited, only a line that lists it directly lets a package
// import it.
func (l layers) fenced(n string) bool {
	if _, ok := rule[n]; ok {
		return true
	}
	for _, g := range l.groupsOf(n) {
		if _, ok := rule[g]; ok {
			return true
		}
	}
	return false
}

func isGroup(s string) bool { return s == strings.ToUpper(s) && !strings.ContainsAny(s, "./") }

// node names what an import path is to the order: a package of the
// module (its path in the module), a group of an external module, or ""
// for an import the order does not govern.
func (l layers) node(imp string) string {
	if rel, ok := strings.CutPrefix(imp, module); ok {
		return rel
	}
	for g, members := range l.groups {
		for _, m := range members {
			if strings.Contains(m, ".") && (imp == m || strings.HasPrefix(imp, m+"/")) {
				return g
			}
		}
	}
	return ""
}

// groupsOf returns the groups n belongs to (CONNECTORS for a concrete
// connector).
func (l layers) groupsOf(n string) []string {
	var out []string
	for g, members := range l.groups {
		if slices.Contains(members, n) {
			out = append(out, g)
		}
	}
	return out
}

// mayImport reports whether package from may import node to.
func (l layers) mayImport(from, to string) bool {
	allowed := l.allowed[from]
	if allowed[to] {
		return true
	}
	for _, g := range l.groupsOf(to) {
		if allowed[g] {
			return true
		}
	}
	return false
}

// why returns the rule an import of to from from breaks.
func (l layers) why(from, to string) string {
	if r, ok := rule[to]; ok {
		return r
	}
	for _, g := range l.groupsOf(to) {
		if r, ok := rule[g]; ok {
			return r
		}
	}
	if slices.Contains(leaves, from) {
		return strings.Join(leaves, ", ") + " are leaves: they import only each other, as the order lists"
	}
	return "no package reaches back up: " + from + " may import only " + strings.Join(l.list(from), ", ")
}

func (l layers) list(from string) []string {
	var out []string
	for x := range l.allowed[from] {
		if !isGroup(x) && !strings.Contains(x, ".") {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return []string{"nothing of the module"}
	}
	return out
}

// pkg is what go list says of one package.
type pkg struct {
	ImportPath                                            string
	Dir                                                   string
	GoFiles, CgoFiles, TestGoFiles, XTestGoFiles, Ignored []string
	IgnoredGoFiles                                        []string
}

func listPackages(t *testing.T) []pkg {
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages, not the module's", len(pkgs))
	}
	return pkgs
}

// fileImports returns the import paths of one Go file.
func fileImports(t *testing.T, path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, s := range f.Imports {
		p, err := strconv.Unquote(s.Path.Value)
		if err != nil {
			t.Fatalf("%s: import %s: %v", path, s.Path.Value, err)
		}
		out = append(out, p)
	}
	return out
}

// TestLayering checks every import of every Go file of the module, on
// every platform (files another GOOS would build too), against order.
func TestLayering(t *testing.T) {
	l := parseOrder(t, order)
	for _, p := range listPackages(t) {
		rel := l.node(p.ImportPath)
		if rel == "" {
			t.Errorf("%s is outside the module %s", p.ImportPath, module)
			continue
		}
		var prod, tests []string
		prod = append(append(prod, p.GoFiles...), p.CgoFiles...)
		tests = append(append(tests, p.TestGoFiles...), p.XTestGoFiles...)
		for _, f := range p.IgnoredGoFiles {
			if strings.HasSuffix(f, "_test.go") {
				tests = append(tests, f)
			} else {
				prod = append(prod, f)
			}
		}
		if len(prod) > 0 && !l.placed[rel] {
			t.Errorf("package %s is not in the import order: add it to the order in internal/layering/layering_test.go", rel)
			continue
		}
		for _, f := range prod {
			for _, imp := range fileImports(t, filepath.Join(p.Dir, f)) {
				to := l.node(imp)
				if to == "" || to == rel || l.mayImport(rel, to) {
					continue
				}
				t.Errorf("%s/%s (package %s) imports %s: %s", rel, f, rel, imp, l.why(rel, to))
			}
		}
		if !l.mayImport(rel, "CONNECTORS") && !strings.HasPrefix(rel, "connectors/") {
			for _, f := range prod {
				for _, msg := range l.byName(t, rel, filepath.Join(p.Dir, f)) {
					t.Errorf("%s/%s (package %s) %s", rel, f, rel, msg)
				}
			}
		}
		for _, f := range tests {
			for _, imp := range fileImports(t, filepath.Join(p.Dir, f)) {
				if msg := l.testImport(rel, imp); msg != "" {
					t.Errorf("%s/%s (tests of %s) imports %s: %s", rel, f, rel, imp, msg)
				}
			}
		}
	}
	l.staleKnown(t)
}

// staleKnown fails for the knownByName entries nothing matched: a paid
// debt leaves the list with its fix.
func (l layers) staleKnown(t *testing.T) {
	for k := range knownByName {
		if !l.used[k] {
			t.Errorf("knownByName lists %q, which no longer compares with that name: remove the entry", k)
		}
	}
}

// testImport returns the rule a test file of package rel breaks by
// importing imp, or "".
func (l layers) testImport(rel, imp string) string {
	to := l.node(imp)
	for g, who := range testRules {
		if (to == g || slices.Contains(l.groupsOf(to), g)) && !slices.Contains(who, rel) {
			return fmt.Sprintf("%s (tests too: only the tests of %s)", rule[g], strings.Join(who, ", "))
		}
	}
	return ""
}

// TestOrderRules checks that order says what its comment says, so an
// edit of the order that loosens a rule fails here by name.
func TestOrderRules(t *testing.T) {
	l := parseOrder(t, order)
	for _, tt := range []struct {
		from, to string
		ok       bool
	}{
		{"parser", "TIDB", true},
		{"planner", "TIDB", true},
		{"planner", "parser", true},
		{"exec", "planner", true},
		{"exec", "TIDB", false},
		{"engine", "TIDB", false},
		{"pgwire", "TIDB", false},
		{"parser", "planner", false},
		{"planner", "exec", false},
		{"planner", "connectors", false},
		{"exec", "engine", false},
		{"exec", "connectors", true},
		{"exec", "connectors/kafka", false},
		{"engine", "pgwire", false},
		{"engine", "connectors", true},
		{"engine", "connectors/datagen", false},
		{"engine", "connectors/file", false},
		{"pgwire", "connectors/datagen", false},
		{"bench", "connectors/datagen", true},
		{"cmd/streamsql", "connectors/kafka", true},
		{"connectors/file", "connectors/format", true},
		{"connectors", "connectors/datagen", false},
		{"types", "sqlerr", false},
		{"sqlerr", "types", false},
		{"catalog", "types", true},
		{"catalog", "planner", false},
		{"lateness", "catalog", false},
		{"funcs", "sqlerr", true},
		{"exec/state", "BADGER", true},
		{"exec", "BADGER", false},
		{"engine", "BADGER", false},
	} {
		if got := l.mayImport(tt.from, tt.to); got != tt.ok {
			t.Errorf("%s may import %s: %v, want %v", tt.from, tt.to, got, tt.ok)
		}
	}
}

// byName returns what file path of package rel does with concrete
// connectors' names (and the engine's memory connector's): a comparison
// (==, !=, a switch case) with a string that names one, unless
// knownByName lists it.
func (l layers) byName(t *testing.T, rel, path string) []string {
	conns := []string{"memory"} // the engine's own connector (engine/memory_source.go)
	for _, c := range l.groups["CONNECTORS"] {
		conns = append(conns, c[strings.LastIndex(c, "/")+1:])
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	check := func(e ast.Expr) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		name, err := strconv.Unquote(lit.Value)
		if err != nil || !slices.Contains(conns, name) {
			return
		}
		if k := rel + "/" + filepath.Base(path) + ": " + name; knownByName[k] != "" {
			l.used[k] = true
			return
		}
		out = append(out, fmt.Sprintf("compares with the connector name %q: %s", name, rule["CONNECTORS"]))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if x.Op == token.EQL || x.Op == token.NEQ {
				check(x.X)
				check(x.Y)
			}
		case *ast.CaseClause:
			for _, e := range x.List {
				check(e)
			}
		}
		return true
	})
	return out
}
