package pgcatalog

import (
	"fmt"
	"regexp"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// SystemSchema is the schema of the engine's system tables
// (streamsql_catalog), a namespace of its own in pg_namespace.
const SystemSchema = "streamsql_catalog"

// Object is what the catalog shows of one engine object.
type Object struct {
	// Name is the object's name as created.
	Name string
	// Schema is the schema holding it: "" for public, SystemSchema for
	// the engine's read-only system tables.
	Schema string
	// Kind is "source", "table", "materialized view" or "sink"
	// (catalog.Kind.String()), or "function" for a SQL function (CREATE
	// FUNCTION), which pg_proc lists instead of pg_class: its Columns
	// are its parameters (Name "" when unnamed), Result its return type.
	Kind string
	// Columns are the output columns in order.
	Columns []Column
	// Key names the primary key / view key columns.
	Key []string
	// Definition is the DDL that created the object.
	Definition string
	// Result is a function's return type (nil for relations).
	Result *Column
	// Options are the WITH options; a sink's "connector" option is its
	// foreign server. Values of keys that look secret (password, secret,
	// token, key) are masked.
	Options map[string]string
}

// Column is one column of an Object.
type Column struct {
	Name string
	Type types.Kind
	// Precision and Scale are a DECIMAL(p, s)'s (0, 0: unconstrained).
	Precision, Scale int
}

// Session is what the catalog functions report about the connection.
type Session struct {
	Database string // current_database()
	User     string // current_user, session_user
	// Schema is current_schema(); "" means "public".
	Schema string
	// Settings are the session's parameters (pg_settings,
	// current_setting()); keys are lower-case.
	Settings map[string]string
	// BackendPID is pg_backend_pid().
	BackendPID int32
	// Version is the server_version setting (e.g. "15.0"); "" means
	// ServerVersion.
	Version string
}

// ServerVersion is the Postgres version streamsql reports.
const ServerVersion = "15.0"

// VersionString is what SELECT version() returns.
const VersionString = "PostgreSQL 15.0 (streamsql) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"

// ResultColumn describes one result column.
type ResultColumn struct {
	Name    string
	TypeOID uint32
}

// Result is the answer to one query: the columns, the rows in text form
// (a nil pointer is NULL) and the command tag ("SELECT n").
type Result struct {
	Columns []ResultColumn
	Rows    [][]*string
	Tag     string
}

// Answer evaluates query, a single SELECT (a trailing semicolon is
// allowed), over the catalog made of objs. params are the values of $1,
// $2, … in text form (nil is NULL); with nil params (Describe before Bind)
// the result still has the right columns and its rows treat every
// parameter as NULL. handled is false when the query is not a catalog
// query: it reads a relation outside pg_catalog and information_schema,
// or (without FROM) calls a function the catalog does not know.
func Answer(query string, params []*string, objs []Object, s Session) (res *Result, handled bool, err error) {
	defer func() {
		// a bug here must fail one query, not the server (the fuzz target
		// has found none)
		if r := recover(); r != nil {
			res, handled, err = nil, true, sqlerr.New(sqlerr.InternalError, "catalog query failed: %v", r)
		}
	}()
	if err := loadSeed(); err != nil {
		return nil, false, fmt.Errorf("pgcatalog seed: %w", err)
	}
	q, perr := parseQuery(query)
	if perr != nil {
		if pe, ok := perr.(parseError); ok && pe.tooDeep && looksCatalog(query) {
			return nil, true, sqlerr.TooDeep(sqlerr.PosAt(query, pe.off), pe.msg)
		}
		if looksCatalog(query) {
			return nil, true, sqlerr.New(sqlerr.FeatureNotSupport, "catalog query not supported: %v", perr)
		}
		return nil, false, nil
	}
	if !isCatalogQuery(q) {
		return nil, false, nil
	}
	if s.Database == "" {
		s.Database = "streamsql"
	}
	if s.User == "" {
		s.User = "streamsql"
	}
	ev := &evaluator{cat: newCatData(objs, s), params: params}
	rel, err := ev.query(q, nil, false)
	if err != nil {
		return nil, true, err
	}
	res = &Result{Tag: fmt.Sprintf("SELECT %d", len(rel.rows))}
	for _, c := range rel.cols {
		t := c.t
		if t == types.OIDUnknown {
			t = types.OIDText
		}
		res.Columns = append(res.Columns, ResultColumn{Name: c.name, TypeOID: t})
	}
	for _, r := range rel.rows {
		out := make([]*string, len(r))
		for i, v := range r {
			if v != nil {
				s := ev.textOf(v, res.Columns[i].TypeOID)
				out[i] = &s
			}
		}
		res.Rows = append(res.Rows, out)
	}
	return res, true, nil
}

// Handles reports whether Answer handles query (answers it, or fails it
// as a catalog query), without needing the objects: a server can classify
// a statement once, when it is prepared, and skip building []Object for
// the engine's queries.
func Handles(query string) bool {
	if loadSeed() != nil {
		return false
	}
	q, err := parseQuery(query)
	if err != nil {
		return looksCatalog(query)
	}
	return isCatalogQuery(q)
}

var catalogWord = regexp.MustCompile(`(?i)\b(pg_catalog|information_schema)\s*\.|\bpg_[a-z_]+\b`)

func looksCatalog(q string) bool { return catalogWord.MatchString(q) }

// isCatalogQuery reports whether q reads only catalog tables (at least
// one), or reads no table and calls only functions this package knows.
func isCatalogQuery(q *query) bool {
	tables, ok := 0, true
	walkQuery(q, func(f fromItem) {
		switch t := f.(type) {
		case *tableRef:
			switch t.schema {
			case "pg_catalog", "information_schema":
				tables++
			case "":
				if _, known := tableCols["pg_catalog."+t.name]; known {
					tables++
				} else {
					ok = false
				}
			default:
				ok = false
			}
		case *funcRef:
			if _, scalar := functions[t.fn.name]; !scalar && !tableFuncs[t.fn.name] {
				ok = false
			}
		}
	}, func(e expr) {
		if f, isF := e.(*funcExpr); isF {
			if _, known := functions[f.name]; !known && !aggregates[f.name] && f.over == nil {
				ok = false
			}
		}
	})
	if !ok {
		// a query naming a catalog table is ours even if it calls a
		// function we lack: it fails here with 42883, not in the engine
		return tables > 0 && !readsUserTable(q)
	}
	return true
}

var tableFuncs = map[string]bool{"generate_series": true, "unnest": true, "pg_options_to_table": true, "pg_get_keywords": true}

func readsUserTable(q *query) bool {
	found := false
	walkQuery(q, func(f fromItem) {
		if t, ok := f.(*tableRef); ok {
			if t.schema != "pg_catalog" && t.schema != "information_schema" {
				if _, known := tableCols["pg_catalog."+t.name]; !known || t.schema != "" {
					found = true
				}
			}
		}
	}, func(expr) {})
	return found
}

// walkQuery visits every FROM item and expression of q and its subqueries.
func walkQuery(q *query, onFrom func(fromItem), onExpr func(expr)) {
	if q == nil {
		return
	}
	visitExpr := func(e expr) {
		walkExpr(e, func(x expr) bool {
			onExpr(x)
			switch x := x.(type) {
			case *subExpr:
				walkQuery(x.q, onFrom, onExpr)
			case *inExpr:
				walkQuery(x.sub, onFrom, onExpr)
			case *anyExpr:
				walkQuery(x.sub, onFrom, onExpr)
			}
			return true
		})
	}
	var visitFrom func(f fromItem)
	visitFrom = func(f fromItem) {
		onFrom(f)
		switch f := f.(type) {
		case *subRef:
			walkQuery(f.q, onFrom, onExpr)
		case *funcRef:
			for _, a := range f.fn.args {
				visitExpr(a)
			}
		case *joinRef:
			visitFrom(f.l)
			visitFrom(f.r)
			visitExpr(f.on)
		}
	}
	walkQuery(q.left, onFrom, onExpr)
	walkQuery(q.right, onFrom, onExpr)
	for _, o := range q.order {
		visitExpr(o.e)
	}
	visitExpr(q.limit)
	visitExpr(q.offset)
	if s := q.sel; s != nil {
		for _, it := range s.items {
			visitExpr(it.e)
		}
		for _, f := range s.from {
			visitFrom(f)
		}
		visitExpr(s.where)
		for _, g := range s.groupBy {
			visitExpr(g)
		}
		visitExpr(s.having)
	}
}
