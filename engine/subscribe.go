package engine

import (
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Subscription is a live feed of one view: the rows it held when the
// subscription began, then every change after them, in order. The
// pipeline never waits for a subscriber: when its buffer is full the
// subscription ends with ErrSubscriberTooSlow.
type Subscription struct {
	// Schema is the view's columns; Keyed says whether the view has a key
	// (its inserts are upserts by that key).
	Schema types.Schema
	Keyed  bool
	// Snapshot is the view's contents at the start.
	Snapshot []types.Row
	// C delivers change batches; it is closed when the subscription ends
	// (Err says why).
	C <-chan []connectors.Change

	ch   chan []connectors.Change
	mu   sync.Mutex
	err  error
	done bool
	e    *Engine
	rt   *viewRT
}

// Errors that end a subscription.
var (
	ErrSubscriberTooSlow = errors.New("subscription dropped: the subscriber fell too far behind the view")
	ErrViewGone          = errors.New("subscription ended: the view was dropped or the engine closed")
)

// Subscribe starts a subscription to view name with room for buffer
// change batches (at least 1).
func (e *Engine) Subscribe(name string, buffer int) (*Subscription, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errors.New("engine is closed")
	}
	o, ok := e.cat.Get(name)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", name)
	}
	rt := e.views[strings.ToLower(o.Name)]
	if o.Kind != catalog.View || rt == nil || rt.pipe.View0 == nil {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "cannot subscribe to %s %q: only materialized views have a changelog", o.Kind, o.Name)
	}
	rows, err := rt.pipe.View0.Rows()
	if err != nil {
		return nil, err
	}
	ch := make(chan []connectors.Change, max(buffer, 1))
	s := &Subscription{Schema: o.Schema, Keyed: len(o.Key) > 0, Snapshot: rows, C: ch, ch: ch, e: e, rt: rt}
	rt.subs = append(rt.subs, s)
	return s, nil
}

// Err returns why the subscription ended (nil while it runs or after
// Close).
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the subscription.
func (s *Subscription) Close() {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	s.rt.removeSub(s)
	s.end(nil)
}

// end closes the channel once; called with the engine lock held.
func (s *Subscription) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	s.done, s.err = true, err
	close(s.ch)
}

func (v *viewRT) removeSub(s *Subscription) {
	for i, x := range v.subs {
		if x == s {
			v.subs = append(v.subs[:i], v.subs[i+1:]...)
			return
		}
	}
}

// notify hands a batch of view changes to the subscribers without
// blocking: a subscriber whose buffer is full is dropped.
func (v *viewRT) notify(ch []connectors.Change) {
	if len(v.subs) == 0 || len(ch) == 0 {
		return
	}
	out := slices.Clone(ch) // one batch for every subscriber, whatever the caller does with ch
	kept := v.subs[:0]
	for _, s := range v.subs {
		select {
		case s.ch <- out:
			kept = append(kept, s)
		default:
			s.end(ErrSubscriberTooSlow)
		}
	}
	clear(v.subs[len(kept):])
	v.subs = kept
}

// endSubs ends every subscription of a view that goes away.
func (v *viewRT) endSubs() {
	for _, s := range v.subs {
		s.end(ErrViewGone)
	}
	v.subs = nil
}
