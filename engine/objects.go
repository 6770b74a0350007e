package engine

import (
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/types"
)

// ObjectInfo is a read-only copy of one catalog object, for introspection
// (the wire server's pg_catalog answers).
type ObjectInfo struct {
	Name    string
	Kind    catalog.Kind
	Columns types.Schema
	Key     []string          // primary key / view key column names
	SQL     string            // the DDL that created it, passwords hidden
	Options map[string]string // WITH options (connector, topic, ...), passwords hidden
	SideOf  string            // the view owning this side table, or ""
}

// Objects returns every source, table, view and sink in creation order.
// The copies share nothing with the catalog.
func (e *Engine) Objects() []ObjectInfo {
	e.mu.Lock()
	defer e.mu.Unlock()
	objs := e.cat.List(0)
	out := make([]ObjectInfo, 0, len(objs))
	for _, o := range objs {
		oi := ObjectInfo{Name: o.Name, Kind: o.Kind, Columns: append(types.Schema(nil), o.Schema...), SQL: redact(o.SQL), SideOf: o.SideOf}
		for _, k := range o.Key {
			if k >= 0 && k < len(o.Schema) {
				oi.Key = append(oi.Key, o.Schema[k].Name)
			}
		}
		if len(o.Options) > 0 {
			oi.Options = make(map[string]string, len(o.Options))
			for k, v := range o.Options {
				oi.Options[k] = redact(v)
			}
		}
		out = append(out, oi)
	}
	return out
}
