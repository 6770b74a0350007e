package pgcatalog

import (
	"github.com/streamsql/streamsql/types"
)

// Object is what the catalog shows of one engine object.
type Object struct {
	// OID identifies the relation; 0 lets Answer derive a stable one from
	// the name.
	OID uint32
	// Name is the object's name as created.
	Name string
	// Kind is "source", "table", "materialized view" or "sink"
	// (catalog.Kind.String()).
	Kind string
	// Columns are the output columns in order.
	Columns []Column
	// Key names the primary key / view key columns.
	Key []string
	// Definition is the DDL that created the object.
	Definition string
}

// Column is one column of an Object.
type Column struct {
	Name string
	Type types.Kind
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
// the result still has the right columns. handled is false when the query
// is not a catalog query.
func Answer(query string, params []*string, objs []Object, s Session) (res *Result, handled bool, err error) {
	return nil, false, nil
}
