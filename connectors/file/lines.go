package file

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Buffer sizes of a lineReader: it starts with readChunk bytes and grows
// (doubling) only for a line longer than the buffer, up to maxLine.
const (
	readChunk = 64 << 10
	maxLine   = 64 << 20
)

// errLineTooLong is reported for a line longer than maxLine bytes.
var errLineTooLong = fmt.Errorf("line longer than %d bytes", maxLine)

// lineReader splits a file (any io.Reader positioned at pos) into lines.
// It tracks the byte position after the last consumed line, so a caller
// can checkpoint it and reopen the file there. A line ends at "\n"; a "\r"
// before it is dropped (CRLF files). A last line without "\n" is returned
// only when the caller says the input is final (not following), otherwise
// it stays unconsumed until its newline arrives.
type lineReader struct {
	r     io.Reader
	buf   []byte
	start int   // first unconsumed byte in buf
	end   int   // end of valid bytes in buf
	scan  int   // bytes before scan (from start) hold no "\n"
	pos   int64 // file position of buf[start]: the consumed offset
}

// newLineReader returns a reader of r, whose next byte is at file
// position pos, with a buffer of size bytes to start with.
func newLineReader(r io.Reader, pos int64, size int) *lineReader {
	return &lineReader{r: r, buf: make([]byte, size), pos: pos}
}

// next returns the next line without its terminator and the file position
// of its first byte. ok is false when no complete line is available (more
// may arrive later when following). With final, a trailing partial line at
// the end of the input counts as complete. The line aliases the reader's
// buffer and is valid until the next call. After next, offset() is the
// position after the returned line.
func (l *lineReader) next(final bool) (line []byte, off int64, ok bool, err error) {
	for {
		if i := bytes.IndexByte(l.buf[l.start+l.scan:l.end], '\n'); i >= 0 {
			nl := l.start + l.scan + i
			line, off = l.consume(nl, nl+1)
			return line, off, true, nil
		}
		l.scan = l.end - l.start
		n, rerr := l.fill()
		if n > 0 {
			continue
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, l.pos, false, rerr
		}
		if l.end == l.start || !final {
			return nil, l.pos, false, nil
		}
		line, off = l.consume(l.end, l.end)
		return line, off, true, nil
	}
}

// offset returns the file position after the last consumed line.
func (l *lineReader) offset() int64 { return l.pos }

// pending reports whether unconsumed bytes (a partial line) are buffered.
func (l *lineReader) pending() bool { return l.end > l.start }

// consume takes buf[start:lineEnd] as a line (dropping a trailing "\r"),
// moves start to next and returns the line with its file position.
func (l *lineReader) consume(lineEnd, next int) ([]byte, int64) {
	line := l.buf[l.start:lineEnd]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	off := l.pos
	l.pos += int64(next - l.start)
	l.start, l.scan = next, 0
	return line, off
}

// fill reads more bytes after end, compacting or growing the buffer first
// when it is full. It returns the bytes read.
func (l *lineReader) fill() (int, error) {
	if l.start == l.end {
		l.start, l.end = 0, 0
	}
	if l.end == len(l.buf) {
		if l.start > 0 {
			copy(l.buf, l.buf[l.start:l.end])
			l.end -= l.start
			l.start = 0
		} else {
			if len(l.buf) >= maxLine {
				return 0, errLineTooLong
			}
			nb := make([]byte, 2*len(l.buf))
			copy(nb, l.buf[:l.end])
			l.buf = nb
		}
	}
	n, err := l.r.Read(l.buf[l.end:])
	l.end += n
	return n, err
}
