package planner_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// TestGolden runs the plan and EXPLAIN goldens in testdata/*.txt. Rewrite
// them with `go test ./planner/ -run Golden -rewrite`, then read the diff.
//
// Commands (each file starts with an empty catalog):
//
//	source            CREATE SOURCE / CREATE TABLE DDL: adds it to the catalog
//	plan [strict=off] CREATE MATERIALIZED VIEW: the logical plan, the rules
//	                  that fired and the optimized plan (the view is added
//	                  to the catalog, as the engine does)
//	explain           CREATE MATERIALIZED VIEW: EXPLAIN under
//	                  Settings{Strict: true, Parallelism: 4} (and a check
//	                  that planner.Graph has the physical plan's nodes)
//	query             an ad-hoc SELECT over views: logical plan, rules and
//	                  optimized plan
//	error [strict=off] a statement that must fail: SQLSTATE and message
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			g := &golden{cat: catalog.New()}
			datadriven.RunTest(t, path, g.run)
		})
	}
}

// golden holds one file's catalog.
type golden struct {
	cat *catalog.Catalog
}

func (g *golden) run(t *testing.T, d *datadriven.TestData) string {
	set := planner.Settings{Strict: !d.HasArg("strict"), Parallelism: 4}
	switch d.Cmd {
	case "source":
		if err := g.source(d.Input); err != nil {
			return errText(err)
		}
		return "ok\n"
	case "plan":
		vp, err := g.view(d.Input, set)
		if err != nil {
			return errText(err)
		}
		return planText(vp)
	case "explain":
		vp, err := g.planView(d.Input, set)
		if err != nil {
			return errText(err)
		}
		checkGraph(t, d, vp.Optimized, set.Parallelism)
		return vp.Explain(set, nil)
	case "query":
		return g.query(d.Input)
	case "error":
		_, err := g.exec(d.Input, set)
		if err == nil {
			d.Fatalf(t, "expected an error")
		}
		return errText(err)
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

// exec runs one DDL statement or ad-hoc query of the error command.
func (g *golden) exec(sql string, set planner.Settings) (string, error) {
	st, err := parseOne(sql)
	if err != nil {
		return "", err
	}
	switch s := st.(type) {
	case *parser.CreateSourceStmt:
		return "", g.source(sql)
	case *parser.CreateViewStmt:
		_, err := g.view(sql, set)
		return "", err
	case *parser.QueryStmt:
		n, err := planner.BuildQuery(s, g.cat, true, "")
		if err != nil {
			return "", err
		}
		return planner.Format(n), nil
	}
	return "", fmt.Errorf("unexpected statement %T", st)
}

func parseOne(sql string) (parser.Stmt, error) {
	stmts, err := parser.Parse(sql)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, fmt.Errorf("want one statement, got %d", len(stmts))
	}
	return stmts[0], nil
}

// source adds a source or table the way engine/ddl.go createSource builds
// it: schema, generated columns, primary key, watermark column and delay,
// options.
func (g *golden) source(sql string) error {
	st, err := parseOne(sql)
	if err != nil {
		return err
	}
	s, ok := st.(*parser.CreateSourceStmt)
	if !ok {
		return fmt.Errorf("source: want CREATE SOURCE, got %T", st)
	}
	o := &catalog.Object{Kind: catalog.Source, Name: s.Name, SQL: s.Text(), TimeCol: -1, Options: map[string]string{}}
	if s.IsTable {
		o.Kind = catalog.Table
	}
	for _, opt := range s.Options {
		o.Options[strings.ToLower(opt.Name)] = opt.Value
	}
	for _, c := range s.Columns {
		t, gen := c.Type, catalog.GenNone
		switch c.Generated {
		case parser.IngestionTime:
			t, gen = types.Timestamp, catalog.GenIngestion
		case parser.ProcTime:
			t, gen = types.Timestamp, catalog.GenProcTime
		}
		o.Schema = append(o.Schema, types.Column{Name: c.Name, Type: t})
		o.Generated = append(o.Generated, gen)
	}
	for _, k := range s.PrimaryKey {
		o.Key = append(o.Key, o.Schema.Index(k))
	}
	if w := s.Watermark; w != nil {
		o.TimeCol, o.Delay = o.Schema.Index(w.Column), w.Delay
	}
	// The engine sets Typed from its connectors' factories; of the
	// connectors the goldens name, datagen is the typed one.
	o.Typed = o.Options["connector"] == "datagen"
	return g.cat.Add(o)
}

// planView plans a CREATE MATERIALIZED VIEW without adding it.
func (g *golden) planView(sql string, set planner.Settings) (*planner.ViewPlan, error) {
	st, err := parseOne(sql)
	if err != nil {
		return nil, err
	}
	s, ok := st.(*parser.CreateViewStmt)
	if !ok {
		return nil, fmt.Errorf("want CREATE MATERIALIZED VIEW, got %T", st)
	}
	return planner.PlanView(s, g.cat, set)
}

// view plans a view and adds it (and its side table) to the catalog, as
// engine/ddl.go createView does.
func (g *golden) view(sql string, set planner.Settings) (*planner.ViewPlan, error) {
	vp, err := g.planView(sql, set)
	if err != nil {
		return nil, err
	}
	o := &catalog.Object{Kind: catalog.View, Name: vp.Name, Schema: vp.Optimized.Schema(), Key: vp.Key, TimeCol: -1}
	if err := g.cat.Add(o); err != nil {
		return nil, err
	}
	if vp.SideTable != "" {
		side := &catalog.Object{Kind: catalog.Table, Name: vp.SideTable, Schema: vp.SideSchema, SideOf: vp.Name, TimeCol: -1}
		if err := g.cat.Add(side); err != nil {
			return nil, err
		}
	}
	return vp, nil
}

// planText renders a view plan: logical, rules, optimized, and the
// schema the view stores.
func planText(vp *planner.ViewPlan) string {
	var b strings.Builder
	b.WriteString(planner.Format(vp.Logical))
	b.WriteString(rulesLine(vp.Rules))
	b.WriteString(planner.Format(vp.Optimized))
	fmt.Fprintf(&b, "schema: %s\n", schemaText(vp.Optimized.Schema()))
	if vp.SideTable != "" {
		fmt.Fprintf(&b, "side table %s: %s\n", vp.SideTable, schemaText(vp.SideSchema))
	}
	for _, w := range vp.Warnings {
		b.WriteString("warning: " + w + "\n")
	}
	return b.String()
}

func (g *golden) query(sql string) string {
	st, err := parseOne(sql)
	if err != nil {
		return errText(err)
	}
	q, ok := st.(*parser.QueryStmt)
	if !ok {
		return fmt.Sprintf("want a query, got %T\n", st)
	}
	n, err := planner.BuildQuery(q, g.cat, true, "")
	if err != nil {
		return errText(err)
	}
	opt, rules := planner.Optimize(n)
	return planner.Format(n) + rulesLine(rules) + planner.Format(opt) + "schema: " + schemaText(opt.Schema()) + "\n"
}

func rulesLine(rules []string) string {
	if len(rules) == 0 {
		return "rules: none\n"
	}
	return "rules: " + strings.Join(rules, ", ") + "\n"
}

func schemaText(s types.Schema) string {
	parts := make([]string, len(s))
	for i, c := range s {
		parts[i] = c.Name + " " + c.Type.String()
	}
	return strings.Join(parts, ", ")
}

// errText renders an error with its SQLSTATE.
func errText(err error) string {
	return fmt.Sprintf("ERROR %s: %s\n", sqlerr.Code(err), err.Error())
}

// checkGraph requires planner.Graph to have one node per line of the
// physical plan's text, in the same order, with the same operator, and
// every node but the root to feed exactly one other.
func checkGraph(t *testing.T, d *datadriven.TestData, n planner.Node, par int) {
	all := strings.Split(strings.TrimRight(planner.Physical(n, par), "\n"), "\n")
	// "Shared #k" lines are further consumers of a node printed above:
	// an edge each, no node.
	var lines []string
	for _, l := range all {
		if !strings.HasPrefix(strings.TrimSpace(l), "Shared #") {
			lines = append(lines, l)
		}
	}
	g := planner.Graph(n, par)
	if len(g.Nodes) != len(lines) || len(g.Edges) != len(all)-1 {
		d.Fatalf(t, "graph has %d nodes and %d edges for %d plan lines", len(g.Nodes), len(g.Edges), len(all))
	}
	feeds := map[int]int{}
	for _, e := range g.Edges {
		feeds[e.From]++
	}
	for i, node := range g.Nodes {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), node.Op) || node.ID != i {
			d.Fatalf(t, "graph node %d is %s, plan line %q", i, node.Op, lines[i])
		}
		want := min(i, 1)
		var ref, uses int
		if _, tail, ok := strings.Cut(lines[i], " shared #"); ok {
			if _, err := fmt.Sscanf(tail, "%d by %d consumers", &ref, &uses); err == nil {
				want = uses
			}
		}
		if feeds[i] != want {
			d.Fatalf(t, "graph node %d (%s) feeds %d nodes, want %d", i, node.Op, feeds[i], want)
		}
	}
}
