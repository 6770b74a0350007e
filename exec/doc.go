// Package exec runs physical plans as incremental operators.
//
//	source reader ──▶ Filter ─▶ Project ─▶ WindowAggregate ─▶ Project ─▶ Materialize ─▶ sinks
//	 (stamps each row with       (stateless)   (keyed: Parallel     (view contents)
//	  the watermark in force)                   instances by hash)
//
// Invariants:
//   - Batches carry rows, optional retraction signs and, from sources, the
//     watermark in force when each row arrived; lateness is judged per row
//     against it, so results do not depend on batch boundaries.
//   - Every keyed state is bounded: windows by window_end + allowed
//     lateness, joins by their interval (or window) and the other input's
//     watermark, non-windowed aggregates by STATE TTL, temporal filters
//     by their clock (rows are kept only until it passes them), window
//     Top-Ns by their limit per window and partition until window_end.
//   - A checkpoint holds each operator's keys changed since the previous
//     one, and for sessions, TTL groups, join keys and temporal filters'
//     rows a stored timer at the time each next needs (timers.go,
//     join_timers.go; a TUMBLE or HOP window's key is its end, its own
//     timer: window_store.go); a spilling operator's (and a temporal filter's)
//     Restore reads nothing and loads keys on use (the Top-Ns and running
//     aggregates, whose partitions a partStore holds, read every owned
//     partition and evict as they go: parts_spill.go), otherwise
//     the parallel instances reload concurrently, each reading only the
//     values of the keys it owns (decided from the key).
//   - A plan node with several parents (planner.ShareIdenticalSubplans)
//     is built once behind a Tee that delivers each batch and watermark to
//     every subscriber in turn; its state is one copy under the state id of
//     its first use, and later uses skip the ids their copies would have
//     taken, so the other operators keep the ids of the unshared plan.
//   - A join keeps its buffered rows encoded, each key's rows back to back
//     in one pointer-free buffer the garbage collector does not scan and a
//     checkpoint copies as they are (join_rows.go), with one memory timer
//     per key rather than per row; memory timers are bucketed by time
//     (timer_buckets.go), so covering an entry is an append.
package exec
