package engine

import (
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// createFunction runs CREATE [OR REPLACE] FUNCTION: the planner checks
// the body; the function is stored in the catalog (persisted at once).
// Replacing a function a view or query sink inlined is refused: the view
// keeps the old body while a restart would plan it with the new one.
func (e *Engine) createFunction(st *parser.CreateFunctionStmt) (*Result, error) {
	const tag = "CREATE FUNCTION"
	if old, ok := e.cat.Function(st.Name); ok {
		if !st.OrReplace {
			return nil, sqlerr.New(sqlerr.DuplicateFunction, "function %s already exists", old.Name).
				WithHint("use CREATE OR REPLACE FUNCTION, or DROP FUNCTION first")
		}
		if d := e.functionUser(old.Name); d != "" {
			return nil, sqlerr.New(sqlerr.DependentObjects, "cannot replace function %s because %s depends on it", old.Name, d).
				WithHint("a SQL function is inlined into the views that call it; drop them first")
		}
	}
	f, err := planner.PlanFunction(st, e.cat)
	if err != nil {
		return nil, err
	}
	e.cat.PutFunction(f)
	return &Result{Tag: tag}, e.saveCatalog()
}

// dropFunction runs DROP FUNCTION [IF EXISTS] name [(types)]: refused
// while a view, query sink or another function uses it.
func (e *Engine) dropFunction(st *parser.DropFunctionStmt) (*Result, error) {
	const tag = "DROP FUNCTION"
	f, ok := e.cat.Function(st.Name)
	if ok && st.Args != nil && !sameArgs(f.Params, st.Args) {
		ok = false
	}
	if !ok {
		if st.IfExists {
			return &Result{Tag: tag, Notice: []string{"function " + st.Name + " does not exist, skipping"}}, nil
		}
		return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s does not exist", funcSignature(st.Name, st.Args))
	}
	if d := e.functionUser(f.Name); d != "" {
		return nil, sqlerr.New(sqlerr.DependentObjects, "cannot drop function %s because %s depends on it", f.Name, d).
			WithHint("drop the objects that use it first")
	}
	e.cat.RemoveFunction(f.Name)
	return &Result{Tag: tag}, e.saveCatalog()
}

// functionUser names an object (view, query sink or SQL function) that
// uses the SQL function name, or "".
func (e *Engine) functionUser(name string) string {
	for _, o := range e.cat.List(0) {
		for _, u := range o.Functions {
			if strings.EqualFold(u, name) {
				return o.Kind.String() + " " + o.Name
			}
		}
	}
	for _, g := range e.cat.Functions() {
		for _, u := range g.Uses {
			if strings.EqualFold(u, name) && !strings.EqualFold(g.Name, name) {
				return "function " + g.Name
			}
		}
	}
	return ""
}

// sameArgs reports whether the parameter types are the types written.
func sameArgs(params types.Schema, args []types.Column) bool {
	if len(params) != len(args) {
		return false
	}
	for i, a := range args {
		if params[i].Type != a.Type {
			return false
		}
	}
	return true
}

// funcSignature renders name(types) for messages.
func funcSignature(name string, args []types.Column) string {
	if args == nil {
		return name
	}
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = strings.ToLower(a.TypeName())
	}
	return name + "(" + strings.Join(s, ", ") + ")"
}

// Functions returns the SQL functions in creation order, as copies (the
// wire server's pg_proc lists them).
func (e *Engine) Functions() []catalog.Function {
	e.mu.Lock()
	defer e.mu.Unlock()
	fs := e.cat.Functions()
	out := make([]catalog.Function, len(fs))
	for i, f := range fs {
		out[i] = *f
		out[i].Params = append(types.Schema(nil), f.Params...)
		out[i].Uses = append([]string(nil), f.Uses...)
	}
	return out
}
