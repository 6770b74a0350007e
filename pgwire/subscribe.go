package pgwire

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// SUBSCRIBE streams a view: its current rows, then every change, each row
// followed by an op column ("insert" or "delete"; for a view with a key,
// "upsert" replaces the row with that key). It runs until the client
// cancels (CancelRequest: the stream ends with 57014), the connection
// closes, or the view is dropped. psql prints a result only when it ends,
// so psql users DECLARE a cursor FOR SUBSCRIBE and FETCH from it.

// subscribeBuffer is how many change batches a subscriber may lag behind
// before the engine drops it.
const subscribeBuffer = 256

var (
	reSubscribe = regexp.MustCompile(`(?is)^\s*subscribe\s+(?:to\s+)?("(?:[^"]|"")+"|[\w$]+)\s*;?\s*$`)
	reDeclare   = regexp.MustCompile(`(?is)^\s*declare\s+("(?:[^"]|"")+"|[\w$]+)\s+(?:[a-z ]*?\s)?cursor\s+(?:(?:with|without)\s+hold\s+)?for\s+(.+)$`)
	reFetch     = regexp.MustCompile(`(?is)^\s*fetch\s+(?:(next|all|forward\s+all|forward\s+\d+|forward|\d+)\s+)?(?:(?:from|in)\s+)?("(?:[^"]|"")+"|[\w$]+)\s*;?\s*$`)
	reClose     = regexp.MustCompile(`(?is)^\s*close\s+("(?:[^"]|"")+"|[\w$]+)\s*;?\s*$`)
)

// subscription is a SUBSCRIBE result: the engine's feed and the op
// labels.
type subscription struct {
	sub   *engine.Subscription
	added string // op of an inserted row: "insert", or "upsert" for keyed views
}

func opOf(keyed bool) string {
	if keyed {
		return "upsert"
	}
	return "insert"
}

func withOp(s types.Schema) []column {
	return append(columnsOf(s), column{name: "op", oid: types.OIDText})
}

func (s *session) subscribe(_ context.Context, sql string) (*result, error) {
	m := reSubscribe.FindStringSubmatch(sql)
	if m == nil {
		return nil, pgError(codeSyntax, "syntax error in SUBSCRIBE: want SUBSCRIBE [TO] view")
	}
	sub, err := s.srv.cfg.Engine.Subscribe(unquoteIdent(m[1]), subscribeBuffer)
	if err != nil {
		return nil, err
	}
	return &result{cols: withOp(sub.Schema), stream: &subscription{sub: sub, added: opOf(sub.Keyed)}, tag: "SUBSCRIBE"}, nil
}

// subscribeColumns describes SUBSCRIBE without starting it.
func (s *session) subscribeColumns(sql string) ([]column, error) {
	m := reSubscribe.FindStringSubmatch(sql)
	if m == nil {
		return nil, pgError(codeSyntax, "syntax error in SUBSCRIBE: want SUBSCRIBE [TO] view")
	}
	sch, err := s.srv.cfg.Engine.Describe(context.Background(), `SELECT * FROM `+m[1])
	if err != nil {
		return nil, err
	}
	return withOp(sch), nil
}

// streamRows sends a subscription until the client cancels, the
// connection fails or the subscription ends. describe sends the
// RowDescription first (simple protocol).
func (s *session) streamRows(res *result, formats []int16, describe bool) error {
	if describe {
		s.be.Send(rowDescription(res.cols, nil))
	}
	return s.streamFeed(newFeed(res), formats)
}

// streamFeed sends c's pending rows, then every change of its
// subscription, until the client cancels, the connection fails or the
// subscription ends (its view dropped: CommandComplete); it closes c.
func (s *session) streamFeed(c *cursor, formats []int16) error {
	ctx, done := s.statementContext()
	defer done()
	defer c.close()
	for {
		s.sendRows(&result{cols: c.cols, rows: c.pending}, formats, 0, len(c.pending))
		c.pending = nil
		if err := s.be.Flush(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case batch, ok := <-c.sub.sub.C:
			if !ok {
				if err := c.ended(); !errors.Is(err, errSubscriptionEnded) {
					return err
				}
				s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SUBSCRIBE")})
				return nil
			}
			c.add(batch)
		}
	}
}

// executeFeed answers an Execute with a row limit on a SUBSCRIBE portal,
// as cursor drivers (pg-cursor, pgjdbc's fetch size) send it: it waits
// until a row is there (the snapshot's first, else the next change), sends
// what is there up to maxRows and PortalSuspended; the next Execute goes
// on where this one stopped. An Execute without a limit streams the rest.
func (s *session) executeFeed(p *portal, maxRows int) error {
	if p.feed == nil {
		p.feed = newFeed(p.res)
	}
	if maxRows <= 0 {
		c := p.feed
		p.feed, p.res, p.done = nil, nil, true
		return s.streamFeed(c, p.formats)
	}
	ctx, done := s.statementContext()
	defer done()
	err := p.feed.next(ctx, maxRows)
	if err != nil && !errors.Is(err, errSubscriptionEnded) {
		p.close()
		p.res, p.done = nil, true
		return err
	}
	c := p.feed
	n := min(maxRows, len(c.pending))
	s.sendRows(&result{cols: c.cols, rows: c.pending}, p.formats, 0, n)
	c.pending = c.pending[n:]
	if err == nil {
		s.be.Send(&pgproto3.PortalSuspended{})
		return nil
	}
	tag := p.res.commandTag()
	p.close()
	p.res, p.done = nil, true
	s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
	return nil
}

// cursor is a DECLAREd cursor: over a SUBSCRIBE (rows arrive as the view
// changes) or over a query's result (rows fixed at DECLARE).
type cursor struct {
	cols    []column
	pending []types.Row
	sub     *subscription
}

func (c *cursor) close() {
	if c.sub != nil {
		c.sub.sub.Close()
	}
}

func (s *session) declare(sql string) (*result, error) {
	m := reDeclare.FindStringSubmatch(sql)
	if m == nil {
		return nil, pgError(codeSyntax, "syntax error in DECLARE: want DECLARE name CURSOR FOR query")
	}
	name := unquoteIdent(m[1])
	if _, ok := s.cursors[name]; ok {
		return nil, pgError(codeDuplicateCursor, "cursor \""+name+"\" already exists")
	}
	q := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m[2]), ";"))
	st := s.prepare(context.Background(), q, nil, false)
	if st.kind == kindSubscribe {
		res, err := s.subscribe(context.Background(), q)
		if err != nil {
			return nil, err
		}
		s.cursors[name] = newFeed(res)
		return &result{tag: "DECLARE CURSOR"}, nil
	}
	ctx, done := s.statementContext()
	defer done()
	res, err := s.runStmtCtx(ctx, st, nil, nil)
	if err != nil {
		return nil, err
	}
	if res.cols == nil || res.stream != nil {
		return nil, pgError(sqlerr.FeatureNotSupport, "DECLARE CURSOR needs a query that returns rows")
	}
	s.cursors[name] = &cursor{cols: res.cols, pending: res.rows}
	return &result{tag: "DECLARE CURSOR"}, nil
}

// newFeed returns a cursor over the subscription res, its snapshot
// pending.
func newFeed(res *result) *cursor {
	c := &cursor{cols: res.cols, sub: res.stream}
	for _, r := range res.stream.sub.Snapshot {
		c.pending = append(c.pending, c.row(r, res.stream.added))
	}
	return c
}

func (c *cursor) row(r types.Row, op string) types.Row {
	row := make(types.Row, len(r)+1)
	copy(row, r)
	row[len(r)] = types.StringValue(op)
	return row
}

// fetchWait is how long FETCH on a subscription waits for a change when
// none is pending.
const fetchWait = time.Second

func (s *session) fetchCursor(sql string) (*cursor, int, error) {
	m := reFetch.FindStringSubmatch(sql)
	if m == nil {
		return nil, 0, pgError(codeSyntax, "syntax error in FETCH: want FETCH [n|ALL|NEXT] FROM cursor")
	}
	c, ok := s.cursors[unquoteIdent(m[2])]
	if !ok {
		return nil, 0, pgError(codeInvalidCursor, "cursor \""+unquoteIdent(m[2])+"\" does not exist")
	}
	count := strings.ToLower(strings.Join(strings.Fields(m[1]), " "))
	n := 1
	switch count {
	case "", "next", "forward":
	case "all", "forward all":
		n = -1
	default:
		k, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(count, "forward")))
		if err != nil {
			return nil, 0, pgError(codeSyntax, "bad FETCH count "+count)
		}
		n = k
	}
	return c, n, nil
}

func (s *session) fetch(ctx context.Context, sql string) (*result, error) {
	c, n, err := s.fetchCursor(sql)
	if err != nil {
		return nil, err
	}
	if c.sub != nil {
		if err := c.pull(ctx, n); err != nil {
			return nil, err
		}
	}
	take := len(c.pending)
	if n >= 0 && n < take {
		take = n
	}
	res := &result{cols: c.cols, rows: c.pending[:take:take], tag: "FETCH " + itoa(take)}
	c.pending = c.pending[take:]
	return res, nil
}

// pull moves available changes into pending: when none is pending it
// waits up to fetchWait for the first batch, then takes what is there
// (up to n rows, all with n < 0).
func (c *cursor) pull(ctx context.Context, n int) error {
	if len(c.pending) == 0 {
		t := time.NewTimer(fetchWait)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		case batch, ok := <-c.sub.sub.C:
			if !ok {
				return c.ended()
			}
			c.add(batch)
		}
	}
	return c.drain(n)
}

// next waits until a row is pending (or ctx or the subscription ends),
// then takes what is there, up to n rows.
func (c *cursor) next(ctx context.Context, n int) error {
	for len(c.pending) == 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case batch, ok := <-c.sub.sub.C:
			if !ok {
				return c.ended()
			}
			c.add(batch)
		}
	}
	return c.drain(n)
}

// drain takes the changes already there, without waiting, until n rows
// are pending (all with n < 0).
func (c *cursor) drain(n int) error {
	for n < 0 || len(c.pending) < n {
		select {
		case batch, ok := <-c.sub.sub.C:
			if !ok {
				if len(c.pending) > 0 {
					return nil
				}
				return c.ended()
			}
			c.add(batch)
		default:
			return nil
		}
	}
	return nil
}

// add appends a batch of changes to pending.
func (c *cursor) add(batch []connectors.Change) {
	for _, ch := range batch {
		op := c.sub.added
		if ch.Op == connectors.Delete {
			op = "delete"
		}
		c.pending = append(c.pending, c.row(ch.Row, op))
	}
}

// errSubscriptionEnded is a subscription's end without an error (its view
// was dropped).
var errSubscriptionEnded = errors.New("subscription ended")

func (c *cursor) ended() error {
	if err := c.sub.sub.Err(); err != nil {
		return &sqlerr.Error{Code: "57P05", Msg: err.Error()}
	}
	return errSubscriptionEnded
}

func (s *session) fetchColumns(sql string) ([]column, error) {
	c, _, err := s.fetchCursor(sql)
	if err != nil {
		return nil, err
	}
	return c.cols, nil
}

func (s *session) closeCursor(sql string) (*result, error) {
	if w := words(sql, 2); len(w) == 2 && w[1] == "all" {
		for k, c := range s.cursors {
			c.close()
			delete(s.cursors, k)
		}
		return &result{tag: "CLOSE CURSOR"}, nil
	}
	m := reClose.FindStringSubmatch(sql)
	if m == nil {
		return nil, pgError(codeSyntax, "syntax error in CLOSE: want CLOSE cursor")
	}
	name := unquoteIdent(m[1])
	c, ok := s.cursors[name]
	if !ok {
		return nil, pgError(codeInvalidCursor, "cursor \""+name+"\" does not exist")
	}
	c.close()
	delete(s.cursors, name)
	return &result{tag: "CLOSE CURSOR"}, nil
}
