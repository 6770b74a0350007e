package pgwire

import (
	"slices"
	"strings"

	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/pgwire/pgcatalog"
	"github.com/streamsql/streamsql/types"
)

// systemTables describes the engine's streamsql_catalog tables, sorted.
func systemTables() []pgcatalog.Object {
	tables := engine.SystemTables()
	names := make([]string, 0, len(tables))
	for name := range tables {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]pgcatalog.Object, 0, len(names))
	for _, name := range names {
		_, table, _ := strings.Cut(name, ".")
		po := pgcatalog.Object{Name: table, Schema: pgcatalog.SystemSchema, Kind: "table",
			Definition: "-- system table " + name + " (read-only; docs/observability.md)"}
		for _, c := range tables[name] {
			po.Columns = append(po.Columns, pgcatalog.Column{Name: c.Name, Type: c.Type, Precision: c.Precision, Scale: c.Scale})
		}
		out = append(out, po)
	}
	return out
}

// catalogAnswer hands a query to pgcatalog (psql's \d queries, pg_catalog
// and information_schema reads, version(), current_schema(), ...). ok is
// false when pgcatalog does not know the query: the engine runs it.
func (s *session) catalogAnswer(sql string, params []*string) (*result, bool, error) {
	infos := s.srv.cfg.Engine.Objects()
	objs := make([]pgcatalog.Object, 0, len(infos))
	for _, o := range infos {
		po := pgcatalog.Object{Name: o.Name, Kind: o.Kind.String(), Key: o.Key, Definition: o.SQL, Options: o.Options}
		for _, c := range o.Columns {
			po.Columns = append(po.Columns, pgcatalog.Column{Name: c.Name, Type: c.Type, Precision: c.Precision, Scale: c.Scale})
		}
		objs = append(objs, po)
	}
	objs = append(objs, systemTables()...)
	for _, f := range s.srv.cfg.Engine.Functions() {
		po := pgcatalog.Object{Name: f.Name, Kind: "function", Definition: f.Body,
			Result: &pgcatalog.Column{Type: f.Returns.Type, Precision: f.Returns.Precision, Scale: f.Returns.Scale}}
		for _, c := range f.Params {
			po.Columns = append(po.Columns, pgcatalog.Column{Name: c.Name, Type: c.Type, Precision: c.Precision, Scale: c.Scale})
		}
		objs = append(objs, po)
	}
	settings := make(map[string]string, len(s.params))
	for k, v := range s.params {
		settings[k] = v
	}
	r, ok, err := pgcatalog.Answer(sql, params, objs, pgcatalog.Session{
		Database:   s.database,
		User:       s.user,
		Settings:   settings,
		BackendPID: int32(s.pid),
		Version:    pgcatalog.ServerVersion,
	})
	if err != nil || !ok {
		return nil, ok, err
	}
	res := &result{tag: r.Tag, cols: make([]column, len(r.Columns)), rows: make([]types.Row, len(r.Rows))}
	for i, c := range r.Columns {
		oid := c.TypeOID
		if !binaryOK(oid) {
			oid = types.OIDText // sent as text whatever format the client asks
		}
		res.cols[i] = column{name: c.Name, oid: oid}
	}
	for i, row := range r.Rows {
		out := make(types.Row, len(res.cols))
		for j := range out {
			if j < len(row) {
				out[j] = textValue(res.cols[j].oid, row[j])
			}
		}
		res.rows[i] = out
	}
	return res, true, nil
}
