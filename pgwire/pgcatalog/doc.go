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
// ::regclass, OPERATOR(pg_catalog.~), COLLATE, ARRAY(subquery), EXISTS,
// aggregates, row_number() OVER (PARTITION BY … ORDER BY …))
// and evaluates it over virtual tables that are rebuilt from the objects
// on every call. It reports handled=false when the query reads nothing it
// knows (no catalog table, no catalog function), so the server can hand
// the query to the engine instead; it returns an error only for a query
// it recognised as a catalog query but could not evaluate. Handles gives
// the same verdict from the text alone, for classifying a prepared
// statement once.
//
// A query may build at most 300,000 intermediate rows (joins, per-row
// subqueries); beyond that it fails with 54000 rather than exhaust memory.
// It may nest sqlerr.MaxDepth levels, counting each link of a chain the
// parser builds in a loop (`a OR b OR …`, casts, joins, UNIONs); a deeper
// catalog query fails with 54001 before the recursive walks see it.
//
// Mapping (what psql shows):
//
//	source            relkind 'r' "table" (psql \dt lists sources and
//	                  tables together)
//	table             relkind 'r'
//	materialized view relkind 'm' (psql \dm and \d list it; \dv lists
//	                  relkind 'v' only and shows nothing, as with
//	                  RisingWave and Materialize, which map them alike)
//	sink              relkind 'f' "foreign table" (psql \dE lists sinks;
//	                  \d sink shows "Server: <connector>" and its WITH
//	                  options as FDW options, secrets masked)
//	key               a unique index "<name>_pkey" and a PRIMARY KEY
//	                  constraint, so \d shows it under "Indexes:"
//
// Names are folded to lower case, as Postgres folds unquoted identifiers
// (the engine's names are case-insensitive), so psql's case-sensitive
// '^(name)$' patterns find them.
//
//	Bool → bool (16), Int → int8 (20), Float → float8 (701),
//	String → text (25), Timestamp → timestamp (1114),
//	Interval → interval (1186)
//
// OIDs are stable: an object's OID is derived from its name (FNV hash into
// the user OID range, a multiple of 4: +1 is its row type, +2 its key
// index, +3 the key constraint; collisions move on in name order), so the
// OID psql looks up in one query finds the same object in the next. Everything
// lives in the database the session names and in schema "public", but the
// engine's system tables (Object.Schema SystemSchema), which live in
// schema streamsql_catalog, off the search path.
//
// The package is pure: no goroutines, no state between calls; it is safe
// for concurrent use.
package pgcatalog
