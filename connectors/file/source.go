package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/format"
	"github.com/streamsql/streamsql/types"
)

// Offsets: a partition offset is ordinal<<ordinalShift | byte position,
// where ordinal is the file's index in the partition's file list (always
// 0 with one file per partition, so the offset is then simply the byte
// position after the last consumed line).
const (
	ordinalShift = 40
	maxFilePos   = 1<<ordinalShift - 1
)

// Read limits: defaultBatch rows when asked for max ≤ 0; a Read that finds
// nothing waits at most maxWait (or poll_interval if shorter) before
// returning an empty batch.
const (
	defaultBatch = 1024
	maxWait      = 100 * time.Millisecond
)

// maxOpen is how many files a source keeps open at once.
const maxOpen = 32

var errClosed = errors.New("file: source is closed")

// offsetOf encodes a file ordinal and a byte position as an offset.
func offsetOf(ord int, pos int64) int64 { return int64(ord)<<ordinalShift | pos }

// splitOffset decodes an offset into a file ordinal and a byte position.
func splitOffset(off int64) (int, int64) { return int(off >> ordinalShift), off & maxFilePos }

// source is the file connectors.Source. It is not safe for concurrent use.
type source struct {
	schema types.Schema
	opts   connectors.Opts
	// required are the columns a line must have (the time column).
	required []int
	format   string
	header   bool
	follow   bool
	poll     time.Duration
	tgt      target
	// seq: one partition reading the target's files one after another in
	// manifest order (follow with a glob or directory).
	seq      bool
	manFile  string
	man      *manifest
	parts    []*partition
	next     int // partition the next Read tries first
	lastList time.Time
	closed   bool
	reads    int64 // Read calls, the clock of partition.used
}

// partition is the read state of one partition.
type partition struct {
	idx   int
	files []string
	ord   int   // index in files of the current file
	pos   int64 // consumed byte position in the current file (when lr is nil)
	f     *os.File
	lr    *lineReader
	dec   format.Decoder
	// needHeader: csv.header is on and this file's header line is the next
	// line to read.
	needHeader bool
	done       bool      // bounded and fully read
	size       int64     // bounded: the file's size at Open (-1: unknown), see Progress
	start      int64     // bounded: the byte position at Open
	used       int64     // Read count when last read, for closing the least recently used file
	checked    time.Time // last checkFollowed
	lastRows   int       // rows of the last batch read (readPartition sizes the next)
}

// offset returns the partition's offset after the last consumed line.
func (p *partition) offset() int64 {
	if p.lr != nil {
		return offsetOf(p.ord, p.lr.offset())
	}
	return offsetOf(p.ord, p.pos)
}

// close closes the current file, keeping its position.
func (p *partition) close() {
	if p.lr != nil {
		p.pos = p.lr.offset()
		p.lr = nil
	}
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
}

// newSource validates spec and lists the files; Open positions it.
func newSource(spec connectors.SourceSpec) (*source, error) {
	if err := connectors.ValidateOptions("file", sourceOptions, connectors.CommonSourceOptions, spec.Options); err != nil {
		return nil, err
	}
	o := connectors.Opts{Values: spec.Options, Specs: sourceOptions}
	s := &source{
		schema: spec.Schema,
		opts:   o,
		format: o.String("format"),
		header: o.Bool("csv.header") && strings.EqualFold(o.String("format"), "csv"),
		follow: o.Bool("follow"),
		poll:   o.Duration("poll_interval"),
	}
	if s.poll <= 0 {
		return nil, fmt.Errorf("file: option 'poll_interval' must be positive, got '%s'", o.String("poll_interval"))
	}
	dec, err := format.NewDecoder(s.format, s.schema, o)
	if err != nil {
		return nil, fmt.Errorf("file: %w", err)
	}
	s.required = spec.Required
	dec = format.Require(dec, s.schema, s.required)
	if _, ok := dec.(format.HeaderSetter); s.header && !ok {
		return nil, errors.New("file: the csv decoder takes no header")
	}
	tgt, err := resolveTarget(o.String("path"))
	if err != nil {
		return nil, err
	}
	s.tgt = tgt
	if s.follow && tgt.kind != plainPath {
		s.seq = true
		if spec.StateDir != "" {
			s.manFile = filepath.Join(spec.StateDir, "file-source", url.PathEscape(spec.Name)+".manifest")
		}
		s.parts = []*partition{{}}
		return s, nil
	}
	if tgt.kind == plainPath {
		if _, err := os.Stat(tgt.path); err != nil && !s.follow {
			return nil, fmt.Errorf("file: %w", err)
		}
		s.parts = []*partition{{files: []string{tgt.path}}}
		return s, nil
	}
	files, err := tgt.list()
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("file: path %q matches no file", tgt.path)
	}
	for i, f := range files {
		s.parts = append(s.parts, &partition{idx: i, files: []string{f}})
	}
	return s, nil
}

// Partitions returns one per file matched when the source was created, or
// 1 when following a glob or directory (its files are read in sequence).
func (s *source) Partitions() int { return len(s.parts) }

// Open positions every partition at offsets[p] (nil: the start of its
// first file).
func (s *source) Open(_ context.Context, offsets []int64) error {
	if offsets != nil && len(offsets) != len(s.parts) {
		return fmt.Errorf("file: %d offsets for %d partitions (did the set of files change?)", len(offsets), len(s.parts))
	}
	for _, p := range s.parts {
		p.close()
	}
	if s.seq {
		man, err := loadManifest(s.manFile, offsets == nil)
		if err != nil {
			return err
		}
		s.man = man
		if offsets == nil {
			if err := man.save(); err != nil {
				return err
			}
		}
		if err := s.list(); err != nil {
			return err
		}
	}
	for i, p := range s.parts {
		p.ord, p.pos, p.done = 0, 0, false
		if offsets == nil {
			continue
		}
		ord, pos := splitOffset(offsets[i])
		if offsets[i] < 0 || (ord >= len(p.files) && offsets[i] != 0) {
			return fmt.Errorf("file: partition %d: offset %d names file #%d, but only %d are known", i, offsets[i], ord, len(p.files))
		}
		p.ord, p.pos = ord, pos
	}
	s.measure()
	s.next, s.closed = 0, false
	return nil
}

// list refreshes a sequence source's manifest with the files present now.
func (s *source) list() error {
	s.lastList = time.Now()
	files, err := s.tgt.list()
	if err != nil {
		return err
	}
	if _, err := s.man.add(files); err != nil {
		return err
	}
	s.parts[0].files = s.man.paths
	return nil
}

// Read returns up to maxRows records (≤ 0: 1024; rows and poison lines
// together) of the next partition, in round-robin order, that has
// complete lines. Blank lines are skipped;
// undecodable lines are returned in Batch.Errors with the offset of their
// first byte. A bounded source returns ErrEndOfInput once every file is
// read to its end; a following one waits up to poll_interval (at most
// 100 ms) and returns an empty batch when nothing new is there.
func (s *source) Read(ctx context.Context, maxRows int) (connectors.Batch, error) {
	if s.closed {
		return connectors.Batch{}, errClosed
	}
	if err := ctx.Err(); err != nil {
		return connectors.Batch{}, err
	}
	if maxRows <= 0 {
		maxRows = defaultBatch
	}
	if s.seq && time.Since(s.lastList) >= s.poll {
		if err := s.list(); err != nil {
			return connectors.Batch{}, err
		}
	}
	for i := range s.parts {
		p := s.parts[(s.next+i)%len(s.parts)]
		if p.done {
			continue
		}
		before := p.offset()
		s.reads++
		p.used = s.reads
		b, err := s.readPartition(p, maxRows)
		if err != nil {
			return connectors.Batch{}, err
		}
		if b.Next != before {
			s.next = (p.idx + 1) % len(s.parts)
			return b, nil
		}
	}
	if s.allDone() {
		return connectors.Batch{}, connectors.ErrEndOfInput
	}
	sleepCtx(ctx, min(s.poll, maxWait))
	p := s.parts[s.next]
	return connectors.Batch{Partition: p.idx, Next: p.offset(), Ingested: time.Now().UnixMicro()}, ctx.Err()
}

// allDone reports whether every partition of a bounded source is read.
func (s *source) allDone() bool {
	for _, p := range s.parts {
		if !p.done {
			return false
		}
	}
	return true
}

// readPartition decodes up to maxRows lines of p (rows and poison lines
// together, so a run of garbage cannot make a batch unbounded).
func (s *source) readPartition(p *partition, maxRows int) (connectors.Batch, error) {
	b := connectors.Batch{Partition: p.idx, Ingested: time.Now().UnixMicro()}
	// Sized like the last batch: a full one is usually followed by another
	// (growing the slice by appends allocated twice its final size).
	b.Rows = make([]types.Row, 0, min(maxRows, p.lastRows))
	defer func() { p.lastRows = len(b.Rows) }()
	for len(b.Rows)+len(b.Errors) < maxRows {
		if p.lr == nil {
			ok, err := s.openFile(p)
			if err != nil {
				return b, err
			}
			if !ok {
				break
			}
		}
		later := s.seq && p.ord+1 < len(p.files)
		line, off, ok, err := p.lr.next(!s.follow || later)
		if err != nil {
			return b, fmt.Errorf("file: read %s at byte %d: %w", p.files[p.ord], p.lr.offset(), err)
		}
		if !ok {
			if s.follow && !later {
				b.Next = p.offset()
				return b, s.checkFollowed(p)
			}
			// The file is read to its end: go on with the next one, or
			// finish a bounded partition.
			p.close()
			if !later {
				p.done = true
				break
			}
			p.ord, p.pos = p.ord+1, 0
			continue
		}
		b.Bytes += int64(len(line)) + 1 // and its newline
		s.decodeLine(p, &b, line, off)
	}
	b.Next = p.offset()
	return b, nil
}

// checkFollowed runs, at most once per poll interval, when a followed
// file has nothing new: a file now shorter than the consumed offset was
// truncated, and a single followed path that names another file now was
// replaced (renamed away by rotation). Both stop the source with an error
// rather than stall silently.
func (s *source) checkFollowed(p *partition) error {
	if time.Since(p.checked) < s.poll {
		return nil
	}
	p.checked = time.Now()
	fi, err := p.f.Stat()
	if err != nil {
		return fmt.Errorf("file: %w", err)
	}
	name := p.files[p.ord]
	if fi.Size() < p.lr.offset() {
		return fmt.Errorf("file: %s shrank to %d bytes below the read position %d (truncated in place? rotate by renaming, and follow a glob)", name, fi.Size(), p.lr.offset())
	}
	if s.seq {
		return nil
	}
	if cur, err := os.Stat(name); err == nil && !os.SameFile(fi, cur) {
		return fmt.Errorf("file: %s was replaced by a new file (rotated?); a file source follows one file: follow a glob over the rotated files instead", name)
	}
	return nil
}

// decodeLine decodes one line into b (a row or a decode error). Blank
// lines are skipped; with csv.header the file's first line is its header.
func (s *source) decodeLine(p *partition, b *connectors.Batch, line []byte, off int64) {
	if isBlank(line) {
		return
	}
	if p.needHeader {
		p.needHeader = false
		if err := p.dec.(format.HeaderSetter).SetHeaderLine(line); err != nil {
			b.Errors = append(b.Errors, connectors.DecodeError{Partition: p.idx, Offset: offsetOf(p.ord, off), Raw: append([]byte(nil), line...), Err: err})
		}
		return
	}
	row, err := p.dec.Decode(line)
	if err != nil {
		b.Errors = append(b.Errors, connectors.DecodeError{Partition: p.idx, Offset: offsetOf(p.ord, off), Raw: append([]byte(nil), line...), Err: err})
		return
	}
	b.Rows = append(b.Rows, row)
}

// isBlank reports whether line holds only spaces and tabs.
func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// openFile opens p's current file at its position with a fresh decoder.
// It returns false when the file does not exist (yet): a following source
// waits for it; a file removed from a sequence is skipped.
func (s *source) openFile(p *partition) (bool, error) {
	for p.ord < len(p.files) {
		name := p.files[p.ord]
		f, err := os.Open(name)
		if os.IsNotExist(err) && s.seq && p.ord+1 < len(p.files) {
			p.ord, p.pos = p.ord+1, 0
			continue
		}
		if os.IsNotExist(err) && s.follow {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("file: %w", err)
		}
		if err := s.startFile(p, f); err != nil {
			f.Close()
			return false, err
		}
		s.closeLeastRecent(p)
		return true, nil
	}
	return false, nil
}

// closeLeastRecent closes the least recently read file other than keep's
// when more than maxOpen partitions hold one (a directory of many files
// would otherwise keep every file and its buffer open). A closed
// partition reopens at its consumed offset on its next turn.
func (s *source) closeLeastRecent(keep *partition) {
	n := 0
	var lru *partition
	for _, p := range s.parts {
		if p.f == nil {
			continue
		}
		n++
		if p != keep && (lru == nil || p.used < lru.used) {
			lru = p
		}
	}
	if n > maxOpen && lru != nil {
		lru.close()
	}
}

// startFile positions p at p.pos in f and sets up the decoder, reading the
// header line first when csv.header is on and the position is past it.
func (s *source) startFile(p *partition, f *os.File) error {
	name := f.Name()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("file: %w", err)
	}
	if p.pos > fi.Size() {
		return fmt.Errorf("file: %s has %d bytes, but the stored offset is byte %d (was the file truncated or replaced?)", name, fi.Size(), p.pos)
	}
	dec, err := format.NewDecoder(s.format, s.schema, s.opts)
	if err != nil {
		return fmt.Errorf("file: %w", err)
	}
	dec = format.Require(dec, s.schema, s.required)
	p.needHeader = false
	if s.header && p.pos == 0 {
		p.needHeader = true
	} else if s.header {
		if err := readHeader(f, dec); err != nil {
			return fmt.Errorf("file: %s: %w", name, err)
		}
	}
	if _, err := f.Seek(p.pos, io.SeekStart); err != nil {
		return fmt.Errorf("file: %w", err)
	}
	p.f, p.dec, p.lr = f, dec, newLineReader(f, p.pos, readChunk)
	return nil
}

// readHeader reads the first non-blank line of f and gives it to dec as
// the CSV header.
func readHeader(f *os.File, dec format.Decoder) error {
	lr := newLineReader(io.NewSectionReader(f, 0, maxLine), 0, 4<<10)
	for {
		line, _, ok, err := lr.next(false)
		if err != nil {
			return fmt.Errorf("read header: %w", err)
		}
		if !ok {
			return errors.New("no complete header line")
		}
		if !isBlank(line) {
			return dec.(format.HeaderSetter).SetHeaderLine(line)
		}
	}
}

// Close closes the open files; Read fails afterwards until the next Open.
func (s *source) Close() error {
	for _, p := range s.parts {
		p.close()
	}
	s.closed = true
	return nil
}

// sleepCtx sleeps for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
