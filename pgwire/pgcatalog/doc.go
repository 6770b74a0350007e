// Package pgcatalog answers the introspection queries Postgres clients send
// (psql's \d family, pgx, JDBC/DBeaver, Grafana) from the engine's catalog.
// The engine's SQL cannot run them: they read pg_catalog and
// information_schema and call Postgres functions.
//
//	query text ──▶ lexer ──▶ parser (a SELECT subset) ──▶ evaluator
//	                                                        │
//	       virtual tables (pg_class, pg_attribute, …,  ◀────┘
//	       information_schema.tables, …) built from []Object
//
// Answer is the one entry point. It parses the query with a small,
// tolerant SQL parser (SELECT lists, FROM with JOINs and subqueries,
// WHERE, GROUP BY, ORDER BY, LIMIT/OFFSET, UNION, CASE, casts such as
// ::regclass, OPERATOR(pg_catalog.~), COLLATE, ARRAY(subquery), EXISTS)
// and evaluates it over virtual tables that are rebuilt from the objects
// on every call. It reports handled=false when the query reads nothing it
// knows (no catalog table, no catalog function), so the server can hand
// the query to the engine instead; it returns an error only for a query
// it recognised as a catalog query but could not evaluate.
//
// Mapping (what psql shows):
//
//	source            relkind 'r' (table; psql \dt lists it)
//	table             relkind 'r'
//	materialized view relkind 'm' (psql \dm and \d list it; \dv lists
//	                  relkind 'v' only, so \dv shows nothing); the
//	                  view's key is a primary-key index "<name>_pkey"
//	sink              relkind 'v' (a view over the view it writes), so
//	                  psql \dv lists sinks
//
//	Bool → bool (16), Int → int8 (20), Float → float8 (701),
//	String → text (25), Timestamp → timestamp (1114),
//	Interval → interval (1186)
//
// OIDs are stable: an object's OID is derived from its name (FNV hash into
// the user OID range, collisions resolved in name order), so the OID psql
// looks up in one query finds the same object in the next. Everything
// lives in the database the session names and in schema "public".
//
// The package is pure: no goroutines, no state between calls; it is safe
// for concurrent use.
package pgcatalog
