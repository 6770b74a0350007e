package layering

import (
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// connectorCalls are the methods of the connectors interfaces that move
// rows or run a checkpoint's side in a destination: only exec's source
// and sink operators call them.
var connectorCalls = map[string]bool{"Read": true, "Open": true, "Write": true, "PreCommit": true, "Commit": true, "Recover": true}

// TestEngineCallsNoConnector keeps the row flow source → operators →
// sink in exec: the engine (statements, the catalog, the checkpoint
// driver) builds connectors and closes them, but does not read a
// connectors.Source or write, pre-commit, commit or recover a
// connectors.Sink itself; exec.Source and exec.Sink do.
func TestEngineCallsNoConnector(t *testing.T) {
	root := filepath.Join("..", "..")
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", "./engine")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	export := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(l, "\t"); ok && file != "" {
			export[path] = file
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := export[path]
		if !ok {
			return nil, errors.New("no export data for " + path)
		}
		return os.Open(f)
	})
	dir := filepath.Join(root, "engine")
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	if _, err := (&types.Config{Importer: imp}).Check(module+"engine", fset, files, info); err != nil {
		t.Fatalf("type-check engine: %v", err)
	}
	calls := 0
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !connectorCalls[sel.Sel.Name] {
				return true
			}
			s := info.Selections[sel]
			if s == nil || s.Kind() != types.MethodVal {
				return true
			}
			calls++
			named, ok := types.Unalias(s.Recv()).(*types.Named)
			if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != module+"connectors" {
				return true
			}
			if _, isIface := named.Underlying().(*types.Interface); isIface {
				t.Errorf("%s: engine calls %s.%s; only exec's source and sink operators call a connector", fset.Position(call.Pos()), named.Obj().Name(), sel.Sel.Name)
			}
			return true
		})
	}
	if calls == 0 {
		t.Fatal("found no method calls named like a connector's in engine: the check reads nothing")
	}
}
