// Package file is the file connector: a source reading JSON lines or CSV
// from files (SourceFactory) and a sink appending a view's changelog as
// JSON lines (SinkFactory). Decoding and encoding are package format's.
//
// # Source: partitions and offsets
//
//	path = file             one partition
//	path = glob | directory one partition per file matched at creation,
//	                        in sorted path order (bounded)
//	  ... with follow       one partition reading the files in sequence
//
// An offset is ordinal<<40 | byte position: the byte position (in the
// partition's current file) after the last consumed line, and the file's
// ordinal in the partition's file list. With one file per partition the
// ordinal is 0 and the offset is simply the byte position. Open(offsets)
// reopens each file and seeks there, so a restart neither repeats nor
// skips a line. A file must stay below 1 TiB.
//
// Lines end at "\n"; a "\r" before it is dropped, so CRLF files read like
// LF files. Blank lines are skipped. A last line without "\n" is read when
// the source is bounded (at the end of the file); a following source
// leaves it unconsumed until its newline arrives, since the writer may be
// half way through it. A line that does not decode becomes a
// connectors.DecodeError with the raw line (no terminator) and the offset
// of its first byte (same encoding as above); reading goes on after it.
// With csv.header the first non-blank line of each file is its header; on
// resume past it, the header is read again from the file's start.
//
// Without follow the source is bounded: Read returns
// connectors.ErrEndOfInput once every file is read. The set of files is
// fixed when the source is created; a restart that finds a different
// number of files fails rather than guess.
//
// With follow and a single file, Read returns lines as they are appended
// (checking every poll_interval, at most 100 ms) and waits for a file that
// does not exist yet. With follow and a glob or directory the files are
// read one after another, as rotated logs: the source moves to the next
// file once the current one is read to its end and a later file exists
// (a last line without "\n" is then taken as complete); it never goes
// back. The order is a manifest: the files present at the start, sorted,
// then files found later, sorted within each poll. The manifest is kept
// in the engine's state directory (file-source/<name>.manifest) and synced
// before a new file is read, so ordinals in checkpoints always name the
// same files; without a state directory it is rebuilt by sorting, which
// is exact when new files sort after old ones. Files that vanish from the
// sequence are skipped. Several files growing at once need one source
// each (or no follow). A followed file that shrinks below the read
// position, or a single followed path that now names another file, stops
// the source with an error (copy-truncate and rename rotation of a single
// path are not followed; follow a glob over the rotated files).
//
// # Sink
//
// Each change is one line: the row's columns as package format encodes
// them plus OpField ("__op": "upsert" or "delete"), e.g.
//
//	{"id":1,"name":"a","ts":"2024-01-01 00:00:00","__op":"upsert"}
//
// delivery = at_least_once (default): Write appends (buffered), PreCommit
// writes and fsyncs, Commit does nothing. After a crash the engine replays
// the changes since its last checkpoint, which appear again; applying the
// file by key converges when the replay touches every key again, which a
// view whose keys depend on batching (SESSION bounds) does not promise.
//
// delivery = exactly_once: Write buffers; PreCommit(id) collapses the
// changes per key and returns them as staged bytes; Commit(id) appends
// them at the committed size, fsyncs, and then replaces <path>.progress
// (checkpoint id and the file's size after it; temp file, fsync, rename,
// directory fsync). Opening the sink truncates bytes beyond the recorded
// size (a commit torn by a crash); Recover(id, staged) appends only when
// the progress file records a checkpoint below id, so recovering twice
// writes once. Nothing is in the file before its checkpoint commits.
package file
