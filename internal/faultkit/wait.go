package faultkit

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

// Waiter is an owner waiting in Lock, started by Env.Wait.
type Waiter struct {
	Owner
	// Done is where the Lock's error comes.
	Done <-chan error
}

// Wait starts the Lock of the i-th owner of e's lock on side s, with ctx,
// and returns once the side has one more Lock waiting.
func (e *Env) Wait(t *testing.T, ctx context.Context, s Side, i int) Waiter {
	t.Helper()
	before := s.Waiting.Load()
	o := e.Owner(s, i)
	w := Waiter{Owner: o, Done: redistest.LockAsync(ctx, o)}
	redistest.Eventually(t, CallBound, "the Lock to wait", func() bool { return s.Waiting.Load() > before })
	return w
}

// WaitBeside is Wait for an owner on side s while s holds e's lock: in
// cohort mode its Lock waits in memory, which no trace reports, and
// WaitBeside returns at once.
func (e *Env) WaitBeside(t *testing.T, ctx context.Context, s Side, i int) Waiter {
	t.Helper()
	if e.K.Cohort {
		o := e.Owner(s, i)
		return Waiter{Owner: o, Done: redistest.LockAsync(ctx, o)}
	}
	return e.Wait(t, ctx, s, i)
}
