package core

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lockkit/lockkit"
)

// Slot keeps a lock value's current hold, lost or not, where the value's
// accessors (Token, Lost) read it without waiting for an acquire or a
// release in progress. The zero Slot holds nothing.
type Slot struct {
	mu sync.Mutex
	h  *Hold
}

// Current returns the current hold, which may be lost, or nil. A nil Slot
// holds nothing. A hold lent from another (see Lend) is lost by the time
// Current returns it if that one is.
func (s *Slot) Current() *Hold {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	h := s.h
	s.mu.Unlock()
	if h != nil && h.from != nil {
		h.Catch(h.from)
	}
	return h
}

// Set makes h the current hold; nil when nothing is held.
func (s *Slot) Set(h *Hold) {
	s.mu.Lock()
	s.h = h
	s.mu.Unlock()
}

// Live returns the current hold unless it is lost.
func (s *Slot) Live() *Hold {
	h := s.Current()
	if h == nil || h.Err() != nil {
		return nil
	}
	return h
}

// Token returns the fencing token of the live hold, or 0.
func (s *Slot) Token() int64 {
	if h := s.Live(); h != nil {
		return h.Token
	}
	return 0
}

// Lost returns the lost channel of the current hold; nil (a channel that
// never fires) when nothing is held.
func (s *Slot) Lost() <-chan struct{} {
	if h := s.Current(); h != nil {
		return h.Done()
	}
	return nil
}

// errReleased is the cause of a hold's context that ended because the
// hold was released.
var errReleased = fmt.Errorf("%w: the hold was released", lockkit.ErrNotHeld)

// Context returns a copy of parent (context.Background when nil) that is
// cancelled when the hold current at the call ends: with its lost error
// as the cause (matching ErrLost) when it is lost, and with a cause
// matching ErrNotHeld when it is released. A hold lost already, and not
// yet released, gives one cancelled with that loss; when nothing is held
// it is cancelled already, with a cause matching ErrNotHeld. A nil Slot
// holds nothing.
func (s *Slot) Context(parent context.Context) context.Context {
	if parent == nil {
		parent = context.Background()
	}
	h := s.Current()
	if h == nil {
		ctx, cancel := context.WithCancelCause(parent)
		cancel(lockkit.ErrNotHeld)
		return ctx
	}
	// Derived from the hold's context, so that it has ended when the call
	// that ends the hold (Unlock, say) returns; parent's end, values and
	// deadline are passed on.
	ctx, cancel := context.WithCancelCause(h.context())
	stop := context.AfterFunc(parent, func() { cancel(context.Cause(parent)) })
	context.AfterFunc(ctx, func() { stop() })
	if err := parent.Err(); err != nil {
		cancel(context.Cause(parent))
	}
	return holdContext{ctx, parent}
}

// holdContext is a hold's context (see Slot.Context): its own end and
// cause, with the values and deadline of the caller's parent.
type holdContext struct {
	context.Context // derived from the hold's context
	parent          context.Context
}

// Deadline returns the parent's deadline: the context ends at it too.
func (c holdContext) Deadline() (time.Time, bool) { return c.parent.Deadline() }

// Value looks key up in the context's own chain (its cancellation cause),
// then in the parent's.
func (c holdContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.parent.Value(key)
}
