// Package pgwire serves the Postgres wire protocol (version 3) over the
// engine, so psql, pgx, node-postgres, JDBC tools and Grafana work with
// streamsql: `streamsql serve` is its composition root.
//
//	client ──TCP──▶ Server.Serve ──▶ one session goroutine per connection
//	                                    │ pgproto3.Backend (pgx/v5), body ≤ MaxMessageSize
//	                                    ▼
//	     startup: SSLRequest ('S' + TLS when configured, else 'N'),
//	     StartupMessage, SCRAM-SHA-256 when users are configured,
//	     ParameterStatus…, BackendKeyData, ReadyForQuery
//	                                    ▼
//	     Query (split at top-level ';') │ Parse/Bind/Describe/Execute/Sync/Close/Flush
//	                                    ▼
//	            classify (exec.go) by the statement's first words:
//	   session  SET/SHOW/RESET of session parameters, BEGIN/COMMIT/… no-ops
//	   catalog  pgcatalog.Handles: pg_catalog, information_schema, version(), SELECT 1
//	   cursor   SUBSCRIBE, DECLARE … CURSOR, FETCH, CLOSE (subscribe.go)
//	   engine   everything else: engine.Exec, or a prepared point read by key
//
// # Lifecycle
//
// New builds a Server over an open engine; Serve accepts until Close;
// Close stops the listeners, cancels running statements, closes every
// connection and waits for the session goroutines. The server never opens,
// steps or closes the engine: the caller runs engine.Run beside it and
// closes the engine after Close (cmd/streamsql/serve.go).
//
// # Semantics
//
//   - Errors are ErrorResponses with the SQLSTATE of sqlerr.Error (XX000
//     otherwise); a positioned error carries Position, a 1-based character
//     offset into the client's query text. A user error never closes the
//     connection; a malformed or oversized message does (the byte stream
//     cannot be trusted after it), and only that connection.
//   - Extended protocol: after an error, messages are skipped until Sync.
//     Execute honours its row limit (PortalSuspended). Parse prepares a
//     statement the engine answers once (engine.Prepare: parsed once,
//     parameter types, a point read's lookup); Describe and Execute use
//     it, and Bind's values ($n) are bound as typed constants, never
//     written into the text. A parameter whose type the client leaves
//     open takes the type of the column it is compared with, inserted
//     into or assigned, BIGINT in LIMIT/OFFSET, else text (which the
//     engine converts where a typed value is expected). Only session
//     statements (SET ... = $1) and the catalog answers still read their
//     values as text.
//   - Every statement commits on its own; BEGIN/COMMIT/ROLLBACK are
//     accepted and do nothing.
//   - Cancel: a CancelRequest (or statement_timeout) cancels the running
//     statement's context; the engine stops at its next check and the
//     client gets 57014. A statement waiting for the engine lock is not
//     interruptible while it waits.
//   - SUBSCRIBE streams the view's rows, then its changes, until cancelled;
//     the session reads no other message meanwhile.
//
// Types: Bool→bool (16), Int→int8 (20), Float→float8 (701),
// String→text (25), Timestamp→timestamp (1114), Interval→interval (1186),
// Bytea→bytea (17, text `\x…` hex, binary the bytes), arrays→the element
// type's array type (int8[] 1016, text[] 1009, …; text `{…}`, binary
// Postgres's one-dimensional array format), in text and binary formats; parameters are also read as int2/int4, float4, numeric,
// varchar and timestamptz.
package pgwire
