package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// statusLine is run's progress line on a terminal's stderr. Output to
// stdout (the stdout sink's changelog) first erases it, so a changelog
// line never lands on the end of the status text; the next step redraws
// it.
type statusLine struct {
	mu    sync.Mutex
	on    bool // stderr is a terminal
	shown bool
	last  time.Time
}

// draw shows the text of status, at most every 100 ms (status is not
// called in between). status runs without s's lock: it may wait for the
// engine, whose goroutines may log (and so erase the line) meanwhile.
func (s *statusLine) draw(status func() string) {
	if !s.on {
		return
	}
	s.mu.Lock()
	due := time.Since(s.last) >= 100*time.Millisecond
	if due {
		s.last = time.Now()
	}
	s.mu.Unlock()
	if !due {
		return
	}
	text := status()
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(os.Stderr, "\r\033[K%s", text)
	s.shown = true
}

// clear erases the line if it is shown.
func (s *statusLine) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		fmt.Fprint(os.Stderr, "\r\033[K")
		s.shown = false
	}
}

// clearingWriter erases the status line before each write to w.
type clearingWriter struct {
	w io.Writer
	s *statusLine
}

func (c clearingWriter) Write(p []byte) (int, error) {
	c.s.clear()
	return c.w.Write(p)
}
