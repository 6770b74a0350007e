// Package kafka is the Kafka source and sink of streamsql, built on
// franz-go (kgo). Register SourceFactory and SinkFactory.
//
// # Source
//
// A source reads one topic. Each Kafka partition is one source partition
// (the count is read from the cluster when the source is created and is
// fixed for its life). Offsets live in the engine's checkpoints, not in a
// consumer group: Open(offsets) consumes partition p from exactly
// offsets[p] (kgo.ConsumePartitions with explicit offsets), so a restart
// replays exactly what the last checkpoint did not cover. With nil offsets
// (no checkpoint yet) scan.startup.mode picks the start: earliest, latest,
// timestamp or group-offsets; the start is resolved to explicit offsets
// at Open and reported by the first Reads as empty batches whose Next is
// the start, so the engine's first checkpoint holds it.
//
// Read hands out the records of one partition at a time (round robin),
// decoded with the record timestamp as per-row time (Batch.Times). It
// polls the client only when everything polled before was handed out, at
// most poll.max_records at once, and the client keeps at most one fetch
// of fetch.max_bytes per broker: a slow pipeline bounds the source's
// memory (that is its backpressure). With nothing to read, Read returns
// an empty batch after about 50 ms.
//
// Formats: json and csv (see package format) give append-only rows; a
// tombstone (null value) there is a poison record. upsert-json and
// debezium-json feed a TABLE and set Batch.Ops:
//
//   - upsert-json: the record key identifies the row (a JSON object whose
//     fields name the key columns, or a bare scalar / plain string for a
//     single key column; option key, default the first column); the value
//     is the row as a JSON object, key columns it lacks are taken from the
//     key; a null value deletes the key (a Delete row carrying only the key
//     columns).
//   - debezium-json: {"before", "after", "op"} or the same wrapped as
//     {"schema", "payload"}; op c, r and u upsert "after", d deletes
//     "before" (or the record key when "before" is null); the tombstone
//     Debezium sends after a delete is skipped. Debezium's integer
//     timestamps are read as epoch milliseconds.
//
// A record that does not decode is reported in Batch.Errors with its
// partition, offset and raw value, and Next moves past it.
//
// # Outages
//
// The factories take a logger (WithLogger). Creating a source reads the
// partition count and Open resolves offsets; both wait while the cluster
// is unreachable (waitForCluster: connectors.Backoff between attempts,
// each logged) until their context ends, and fail at once on errors no
// retry fixes (retriable: a missing topic, authorisation). A
// sink that cannot reach the cluster when created sets up on first use.
// While running, a kgo hook (brokerWatch) logs each broker's outage and
// recovery once (connectors.Outage).
//
// # Sink
//
// Record keys are the view key as a JSON object ({"id":1}; option key
// overrides the columns; a view without a key uses every column), values
// the row as JSON, and a delete is a tombstone (null value). Records are
// partitioned by key hash (Kafka's murmur2), so a key's changes stay in
// order in one partition.
//
// delivery = 'at_least_once': an idempotent producer sends changes as
// they are written and PreCommit flushes; after a crash the engine
// replays the changes since the last checkpoint, so consumers see some
// twice and converge by key.
//
// delivery = 'exactly_once' is two-phase. Write buffers; PreCommit(id)
// collapses the changes per key and returns them (EncodeChanges) for the
// engine to store with checkpoint id; Commit(id) begins a Kafka
// transaction, produces the changes and a progress record (key: the sink
// name, value: id) to progress_topic, and commits. Recover(id, staged)
// after a restart reads the sink's last progress record with
// read_committed isolation and commits the staged changes only if it is
// below id, so recovering twice adds nothing. The transactional id
// (default streamsql-<sink name>) is initialised when the sink is created,
// which fences a previous instance and aborts its open transaction; a
// fenced instance's Commit fails at once. Commit and Recover retry with
// backoff while the cluster is unreachable (checking the progress record
// before each retry, since a failed attempt may have committed).
//
// The progress record goes to partition fnv32a(sink name) mod n of the
// progress topic (compacted, created with one partition if missing).
// Reading it back scans that partition backwards from the last stable
// offset, 512 offsets at a time, with control records kept so the reader
// knows when it has reached the stable end.
package kafka
