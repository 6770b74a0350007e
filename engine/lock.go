package engine

import (
	"context"

	"github.com/streamsql/streamsql/sqlerr"
)

// lock is a mutex whose waiters can give up: a statement cancelled (by
// its client, statement_timeout or shutdown) while it waits for the
// engine behind a long FLUSH or checkpoint returns at once instead of
// after the wait. The zero value is not usable; see newLock.
type lock struct{ ch chan struct{} }

func newLock() lock { return lock{ch: make(chan struct{}, 1)} }

// Lock waits for the lock.
func (l lock) Lock() { l.ch <- struct{}{} }

// Unlock releases the lock.
func (l lock) Unlock() { <-l.ch }

// LockContext waits for the lock or for ctx to end, and then returns a
// query_canceled error without the lock.
func (l lock) LockContext(ctx context.Context) error {
	select {
	case l.ch <- struct{}{}:
		return nil
	default:
	}
	select {
	case l.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return &sqlerr.Error{Code: sqlerr.QueryCanceled, Msg: "canceling statement while it waited for the engine", Err: ctx.Err()}
	}
}
