package engine

import (
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
)

// createPlainView runs CREATE VIEW: the query is planned once to check
// it and learn its columns and what it reads; the catalog keeps the DDL,
// which the planner inlines wherever the view is read. Nothing runs and
// nothing is stored besides the catalog entry.
func (e *Engine) createPlainView(st *parser.CreatePlainViewStmt) (*Result, error) {
	if ok, err := e.exists(st.Name, st.Text(), st.IfNotExists); ok || err != nil {
		return &Result{Tag: "CREATE VIEW"}, err
	}
	schema, reads, err := planner.PlanPlainView(st, viewResolver(e.cat), e.timeZone())
	if err != nil {
		return nil, err
	}
	o := &catalog.Object{Kind: catalog.PlainView, Name: st.Name, SQL: st.Text(), Schema: schema, TimeCol: -1, Reads: reads}
	if err := e.cat.Add(o); err != nil {
		return nil, err
	}
	return &Result{Tag: "CREATE VIEW"}, e.saveCatalog()
}

// readsInlined reports whether d names name among the relations it reads
// that no running pipeline shows: the views that are not materialized
// inlined into it, or (for such a view) anything its query reads.
func readsInlined(d *catalog.Object, name string) bool {
	for _, r := range d.Reads {
		if strings.EqualFold(r, name) {
			return true
		}
	}
	return false
}
