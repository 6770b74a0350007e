package pgwire

import (
	"context"
)

// subscription streams a view's changes to the client (SUBSCRIBE).
type subscription struct{}

// cursor is a DECLAREd SUBSCRIBE cursor.
type cursor struct{}

func (c *cursor) close() {}

func (s *session) subscribe(ctx context.Context, sql string) (*result, error) {
	return nil, errNotSupported("SUBSCRIBE")
}

func (s *session) subscribeColumns(sql string) ([]column, error) {
	return nil, errNotSupported("SUBSCRIBE")
}

func (s *session) declare(sql string) (*result, error) { return nil, errNotSupported("DECLARE") }

func (s *session) fetch(ctx context.Context, sql string) (*result, error) {
	return nil, errNotSupported("FETCH")
}

func (s *session) fetchColumns(sql string) ([]column, error) { return nil, errNotSupported("FETCH") }

func (s *session) closeCursor(sql string) (*result, error) { return nil, errNotSupported("CLOSE") }

func (s *session) streamRows(res *result, formats []int16) error { return nil }
