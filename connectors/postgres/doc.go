// Package postgres is the sink that writes a view's changelog into a
// PostgreSQL table: upserts are streamed by a binary COPY into a temporary
// staging table and applied by one MERGE on Postgres 15+ (a join of the
// staged rows with the table) or INSERT ... SELECT ... ON CONFLICT (key)
// DO UPDATE before that; deletes (retractions) become DELETEs by key.
//
// Writes are bulk: the changes of a flush are collapsed per key (Postgres
// rejects a statement that touches one key twice); the deletes go as
// statements over unnest()ed key arrays, batch_rows keys at a time, and
// the upserts as one COPY (encoded a few hundred rows at a time, so a
// million-row checkpoint is not copied again in memory) and one statement,
// all in the flush's transaction.
//
// Delivery:
//
//   - exactly_once (the default): Write buffers; PreCommit(id) collapses
//     the buffer and returns it as the staged bytes the engine stores with
//     checkpoint id; Commit(id) writes those changes and the progress row
//     (sink name → id, in streamsql_sink_progress next to the target
//     table, created when missing) in one Postgres transaction. After a
//     crash the engine calls Recover(id, staged): the sink skips the
//     checkpoint when the progress row already shows id or later. Nothing
//     is visible in Postgres before Commit.
//   - write_connections = N > 1 (keyed views only): each flush's changes
//     are dealt by key hash over N connections, each committing its share
//     and its own progress row (name, name#1, ...) in parallel. Recover
//     re-applies the whole checkpoint unless every progress row of the
//     sink shows it, which stays exactly-once when N changes across a
//     restart; a reader may see part of a checkpoint between the commits.
//   - at_least_once: Write flushes whenever batch_rows changes are
//     buffered, PreCommit flushes the rest, Commit does nothing. Replays
//     after a crash are harmless because upserts and deletes are by key.
//
// A view without a key (and no primary_key option) is append-only: the
// sink only INSERTs, and a delete is an error. Exactly-once still holds
// (the progress row makes each checkpoint's inserts happen once);
// at-least-once may insert a replayed row twice.
//
// Outages: while Postgres is unreachable (connection refused, reset,
// administrator shutdown, too many connections, ...) Write, PreCommit,
// Commit and Recover retry with exponential backoff up to
// retry_max_backoff, logging each attempt, until Postgres returns or the
// context is cancelled; blocking is the pipeline's backpressure and
// nothing is lost. Permanent errors (a missing column, a type mismatch, a
// constraint violation) are returned at once with the table and sink
// named. The DSN's password never appears in logs, errors or Delivery().
//
// The table: with create_table = true the sink creates it (BIGINT, TEXT,
// DOUBLE PRECISION, BOOLEAN, TIMESTAMP, INTERVAL, the primary key, and
// fillfactor 50 when the view updates rows, leaving room for HOT updates,
// or 100 when it only inserts);
// otherwise it checks the existing table fits — every view column exists
// with a compatible type and a primary key or unique index covers exactly
// the key columns — and says what does not. Sessions run with TimeZone
// UTC, so TIMESTAMPTZ columns also receive our UTC timestamps unchanged.
//
// Identifiers: the table option follows SQL rules (unquoted names fold to
// lower case, "Quoted" ones keep their case; schema.table qualifies);
// column names are the view's, always quoted in the SQL the sink sends.
package postgres
