package parser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
)

// placeholderPrefix starts the table names that stand in for window TVFs.
const placeholderPrefix = "__w"

// isPlaceholderName reports whether name has the form of a window
// placeholder (__w0, __w1, ...); users may not use such names.
func isPlaceholderName(name string) bool {
	if len(name) <= len(placeholderPrefix) || !strings.EqualFold(name[:len(placeholderPrefix)], placeholderPrefix) {
		return false
	}
	_, err := strconv.ParseUint(name[len(placeholderPrefix):], 10, 32)
	return err == nil
}

// flinkWindowTVF handles Flink's TABLE(TUMBLE(TABLE t, DESCRIPTOR(c),
// size)) with TABLE at i; it returns i when the form does not follow.
func (q *queryRewrite) flinkWindowTVF(i int) int {
	if i+3 >= len(q.toks) || !q.toks[i+1].isOp("(") || !q.toks[i+3].isOp("(") {
		return i
	}
	switch strings.ToUpper(q.toks[i+2].text) {
	case "TUMBLE", "HOP", "SESSION":
	default:
		return i
	}
	outer, inner := q.match[i+1], q.match[i+3]
	if outer < 0 || inner < 0 {
		return i // unbalanced: TiDB reports it
	}
	if inner+1 != outer {
		q.errAt(q.toks[inner+1], `expected ")" closing TABLE(`)
	}
	return q.windowCall(i+2, i, outer)
}

// windowTVF replaces TUMBLE(...), HOP(...) or SESSION(...) at i by a
// placeholder table and records the window.
func (q *queryRewrite) windowTVF(i int) int {
	closeIdx := q.match[i+1]
	if closeIdx < 0 {
		return i // unbalanced: TiDB reports it
	}
	return q.windowCall(i, i, closeIdx)
}

// windowCall records the window called at i and replaces the tokens
// from..to (the call, or Flink's TABLE(...) around it) by its placeholder.
func (q *queryRewrite) windowCall(i, from, to int) int {
	t := q.toks[i]
	closeIdx := q.match[i+1]
	w := &WindowTVFClause{
		Placeholder: fmt.Sprintf("%s%d", placeholderPrefix, q.p.windows),
		Pos:         q.p.src.pos(q.toks[from].off),
	}
	q.p.windows++
	q.rw.replace(q.toks[from].off, q.toks[to].end, w.Placeholder)
	args := i + 2
	if args < closeIdx && q.toks[args].isOp("(") && q.match[args] > args && q.match[args] < closeIdx {
		args = q.windowSubquery(w, args)
	}
	c := &cursor{p: q.p, toks: q.toks[args:closeIdx], end: q.toks[closeIdx].off, limit: q.end}
	var usage string
	switch strings.ToUpper(t.text) {
	case "TUMBLE":
		w.Kind, usage = Tumble, "TUMBLE(source, time_col, size)"
	case "HOP":
		w.Kind, usage = Hop, "HOP(source, time_col, slide, size)"
	default:
		w.Kind, usage = Session, "SESSION(source, time_col, gap)"
	}
	if err := c.windowArgs(w, usage); err != nil {
		q.errs.add(err)
	} else {
		q.windows = append(q.windows, w)
	}
	return to
}

// windowArgs parses the arguments of a window TVF into w.
func (c *cursor) windowArgs(w *WindowTVFClause, usage string) *sqlerr.Error {
	var err *sqlerr.Error
	hint := "expected " + usage
	if w.Query == nil {
		c.accept("TABLE") // Flink: TUMBLE(TABLE t, DESCRIPTOR(c), size)
		if w.Source, _, err = c.name("the windowed relation: " + usage); err != nil {
			return err
		}
		if c.peek(0).isOp(".") {
			return c.errAt(c.peek(0), "the windowed relation must be a plain name")
		}
	}
	if !c.acceptOp(",") {
		return c.errAt(c.peek(0), hint)
	}
	if w.TimeColumn, err = c.timeColumn(usage); err != nil {
		return err
	}
	if !c.acceptOp(",") {
		return c.errAt(c.peek(0), hint)
	}
	first, err := c.interval(false)
	if err != nil {
		return err
	}
	switch w.Kind {
	case Tumble:
		w.Size = first
	case Session:
		w.Gap = first
	case Hop:
		w.Slide = first
		if !c.acceptOp(",") {
			return c.errAt(c.peek(0), hint)
		}
		if w.Size, err = c.interval(false); err != nil {
			return err
		}
	}
	if !c.atEOF() {
		return c.errAt(c.peek(0), hint)
	}
	return nil
}

// timeColumn parses the time column argument: a name or Flink's
// DESCRIPTOR(name).
func (c *cursor) timeColumn(usage string) (string, *sqlerr.Error) {
	desc := c.peek(0).is("DESCRIPTOR") && c.peek(1).isOp("(")
	if desc {
		c.i += 2
	}
	name, _, err := c.name("the time column: " + usage)
	if err == nil && desc {
		err = c.expectOp(")")
	}
	return name, err
}

// windowSubquery parses the parenthesised subquery at open, the first
// argument of a window call, into w.Query (as a query of its own, with
// its own window placeholders), and returns the index after it.
func (q *queryRewrite) windowSubquery(w *WindowTVFClause, open int) int {
	closeIdx := q.match[open]
	if closeIdx == open+1 {
		q.errAt(q.toks[closeIdx], "expected a subquery")
		return closeIdx + 1
	}
	sub, err := q.p.parseQuery(q.toks[open+1:closeIdx], q.toks[closeIdx].off, nil)
	if err != nil {
		q.errs.add(err)
		return closeIdx + 1
	}
	w.Query = sub
	return closeIdx + 1
}
