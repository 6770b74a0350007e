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
//	                           cnt(*)                   → cnt(__star)
//	                           CAST(x AS BOOLEAN)       → CAST(x AS YEAR) → TypeTiny
//	                           FOR SYSTEM_TIME AS OF    → AS OF TIMESTAMP
//	                           key (TiDB-reserved name) → "key"
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
// of what it replaces (newlines kept), so no offset inside or after it
// moves. Where the
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
// # Reading the TiDB tree (for the planner)
//
//   - Window TVFs: an *ast.TableName whose Name.L is a WindowTVFClause's
//     Placeholder ("__w0", "__w1", ... in FROM order within a statement,
//     EXPLAIN's inner statement included). Its TableSource.AsName is the
//     alias, also in WindowTVFClause.Alias.
//   - Interval arithmetic: TiDB turns `ts - INTERVAL '5' SECOND` into
//     FuncCallExpr DATE_SUB(ts, '5', TimeUnitExpr{SECOND}) (DATE_ADD for +).
//     Units reaching the tree are MICROSECOND, SECOND, MINUTE, HOUR, DAY,
//     WEEK (milliseconds arrive as MICROSECOND) or ones TiDB knows and we
//     pass through (MONTH, YEAR, ...).
//   - Casts: *ast.FuncCastExpr with Tp.GetType() TypeLonglong (Int),
//     TypeVarString (String), TypeDouble (Float), TypeNewDecimal (Decimal
//     of precision Tp.GetFlen() and scale Tp.GetDecimal(); flen 0 is an
//     unconstrained NUMERIC), TypeDate (Date), TypeDatetime with
//     6 fractional digits (Timestamp) or TypeTiny with flen 1 and
//     mysql.IsBooleanFlag (Bool: test it before treating TypeTiny as an
//     integer); see castType for the full mapping. TiDB-native targets (UNSIGNED,
//     TIME, JSON, BINARY, and CONVERT(x, type)) pass through as TiDB
//     parsed them.
//   - A number with a point (0.10) is a TypeNewDecimal literal whose text
//     keeps its scale; with an exponent (1e3) it is a float64.
//   - `a || b` is FuncCallExpr CONCAT; `<>` and `!=` are opcode.NE; TRUE and
//     FALSE are integer literals flagged IsBooleanFlag.
//   - f(*) for any f but count (TiDB takes * in COUNT only) becomes
//     f(__star): a FuncCallExpr or AggregateFuncExpr whose one argument
//     IsStarArg, so the planner can say `function cnt does not exist`
//     instead of a syntax error; the name __star is reserved.
//   - `FOR SYSTEM_TIME AS OF e [[AS] r]` becomes TiDB's `[AS r] AS OF
//     TIMESTAMP e`, i.e. TableName.AsOf (TiDB takes the alias first).
//   - Words TiDB reserves but Postgres users write as names (key, rank,
//     range, ...: tidbReserved) are quoted by the pass when not followed by
//     '(' or used as TiDB keywords there, so they reach the tree as names.
//     The Nexmark columns (date_time, extra, channel, url, name, city,
//     state, category, reserve, expires, seller, description, window_start,
//     window_end, count, price, bidder, auction, id) are all plain
//     identifiers to TiDB and need nothing.
//   - Names keep the user's spelling (CIStr O) and case-folded form (L);
//     our own statements keep names as written, quoted or not, while
//     option keys and setting names are lower-cased.
//
// # Limits
//
//   - At the top level of a view's query, EMIT, ALLOWED LATENESS, LATE DATA
//     and STATE TTL start the streaming clauses: such an alias must be
//     quoted.
//   - '#' is not a comment (TiDB's would disagree with our tokens) and is
//     refused; so are invalid UTF-8, decimal literals over 81 digits (TiDB's
//     test driver cannot hold them) and CAST(x AS YEAR) (the BOOLEAN marker).
//   - A statement nests at most sqlerr.MaxDepth levels (depth.go): the
//     lexer counts parentheses and CASEs, tidbParse measures TiDB's tree
//     (chains like `a OR b OR …` are left-deep), and EXPLAIN EXPLAIN …
//     counts too; deeper is a 54001 error, so no later pass that recurses
//     over the tree can exhaust the stack.
//   - Postgres parameters ($1) are not rewritten: TiDB reads them as names.
//     Flink's TABLE(TUMBLE(TABLE t, DESCRIPTOR(c), size)) is read (not its
//     SESSION ... PARTITION BY form) and restored in our form.
//
// # Errors
//
// Errors are *sqlerr.Error with sqlerr.SyntaxError,
// sqlerr.FeatureNotSupport or sqlerr.StackDepth and the position of the
// first problem, e.g.
// `syntax error at line 3, column 14 near "WATERMARK FRO"`.
package parser
