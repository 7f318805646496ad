package core

import (
	"context"
	"fmt"
	"sync"

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
// holds nothing.
func (s *Slot) Current() *Hold {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.h
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
// matching ErrNotHeld when it is released. When nothing is held it is
// cancelled already, with a cause matching ErrNotHeld. A nil Slot holds
// nothing.
func (s *Slot) Context(parent context.Context) context.Context {
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancelCause(parent)
	var h *Hold
	if s != nil {
		h = s.Live()
	}
	if h == nil {
		cancel(lockkit.ErrNotHeld)
		return ctx
	}
	go func() {
		select {
		case <-h.Done():
			cancel(h.Err())
		case <-h.Ended():
			if err := h.Err(); err != nil {
				cancel(err)
			} else {
				cancel(errReleased)
			}
		case <-ctx.Done():
		}
	}()
	return ctx
}
