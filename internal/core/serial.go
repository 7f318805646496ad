package core

import (
	"context"
	"fmt"

	"golang.org/x/sync/semaphore"
)

// Serial serialises one owner's calls, so that what its holders know stays
// in step with Redis. Unlike a sync.Mutex, Lock gives up when ctx ends: a
// call queued behind one that a silent server holds up still returns
// within its own deadline.
type Serial struct {
	s *semaphore.Weighted
}

// NewSerial returns an unlocked Serial.
func NewSerial() *Serial {
	return &Serial{s: semaphore.NewWeighted(1)}
}

// Lock locks s, or returns an error matching ctx.Err() (and errNotSent:
// nothing was sent) when ctx ends first, or had ended already.
func (s *Serial) Lock(ctx context.Context) error {
	if err := s.s.Acquire(ctx, 1); err != nil {
		return fmt.Errorf("%w: %w", errNotSent, err)
	}
	return nil
}

// Unlock unlocks s.
func (s *Serial) Unlock() {
	s.s.Release(1)
}
