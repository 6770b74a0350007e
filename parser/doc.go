// Package parser turns streamsql scripts into statements.
//
// The core SQL (expressions, joins, grouping, subqueries, casts) is parsed
// by the TiDB parser; the streaming dialect around it is recognised by a
// thin pass of our own. Nothing here is a second general SQL grammar.
//
//	script ──lex──▶ tokens ──split at top-level ';'──▶ statements
//	                                                    │
//	      CREATE SOURCE/TABLE/SINK, DROP, SHOW, SET,   │ SELECT, CREATE MATERIALIZED
//	      DESCRIBE, FLUSH, EXPLAIN ◀── our tokens ─────┤ VIEW ... AS <query>, INSERT
//	                                                    ▼
//	                         rewrite pass (edits on the user's text)
//	                           TUMBLE/HOP/SESSION(...)  → __w0 placeholder table
//	                           INTERVAL '10 seconds'    → INTERVAL '10' SECOND
//	                           x::bigint                → CAST(x AS SIGNED)
//	                           CAST(x AS BOOLEAN)       → CAST(x AS YEAR) → TypeTiny
//	                           FOR SYSTEM_TIME AS OF    → AS OF TIMESTAMP
//	                           view clauses, comments   → blanks
//	                                                    ▼
//	                         TiDB parser (ANSI_QUOTES, PIPES_AS_CONCAT,
//	                         NO_BACKSLASH_ESCAPES) ──▶ ast.ResultSetNode
//	                                                    ▼
//	                         typed nodes of ast.go (QueryStmt.Windows,
//	                         CreateViewStmt.Streaming, ...)
//
// # The placeholder / offset-map invariant
//
// The pass never re-types the user's text: it records edits against it.
// An edit whose replacement fits is padded with blanks to the exact length
// of what it replaces (newlines kept), so every offset TiDB reports inside
// or after it is already an offset of the user's text. Where the
// replacement cannot keep the length (x::bigint → CAST(x AS SIGNED),
// MILLISECOND → MICROSECOND), the rewriter keeps an offset map from the
// rewritten text back to the user's text; an offset inside such an edit
// maps to the edit's start. Every error therefore names a line, a column
// and the text near it in what the user typed.
//
// A window call in a FROM clause becomes a table named __w<n> (numbered per
// statement) padded to the call's length; the call itself is kept as a
// WindowTVFClause in QueryStmt.Windows, and an alias after the call stays
// in the TiDB tree as the AsName of the placeholder's TableSource. Names of
// the form __w<n> are therefore reserved.
//
// # Restore
//
// Every statement's Restore renders SQL that Parse reads back to the same
// tree: TiDB's Restore with double-quoted names, then the window calls put
// back for their placeholders and the streaming clauses in our syntax.
// FuzzParse checks parse → Restore → parse.
//
// # Errors
//
// Errors are *sqlerr.Error with sqlerr.SyntaxError or
// sqlerr.FeatureNotSupport and the position of the first problem, e.g.
// `syntax error at line 3, column 14 near "WATERMARK FRO"`.
package parser
