package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestLock_round_failing_as_ctx_ends_returns_within_500ms_plus_100ms_past_the_deadline:
// Lock takes a, b and c and waits for d, a fair lock another owner holds,
// until its ctx ends; the fair waiter then leaves d's queue, and the
// server does not answer the releases of a, b and c. Lock returns no
// later than core.CleanupTimeout (500 ms) past its deadline, plus the
// core.CleanupGrace (100 ms) d may take to clean up its wait, and a little
// for a loaded machine, not once per member: with an error matching
// ErrNotObtained and DeadlineExceeded, naming the members that may still
// be held. Their own Unlock settles them.
func TestLock_round_failing_as_ctx_ends_returns_within_500ms_plus_100ms_past_the_deadline(t *testing.T) {
	g := newGiveBackScene(t)
	defer g.silent.Off()
	other := fair.New(g.c, g.busy)
	redistest.MustLock(t, other)
	m := multilock.New(g.after(fair.New(g.c, g.busy)))

	g.silent.On()
	ctx := redistest.Ctx(t, 300*time.Millisecond)
	deadline, _ := ctx.Deadline()
	err := m.Lock(ctx)
	late := time.Since(deadline)
	const slack = 150 * time.Millisecond // a loaded machine's scheduling
	if bound := core.CleanupTimeout + core.CleanupGrace + slack; late > bound {
		t.Errorf("Lock whose give-back got no reply returned %v past its deadline; want at most %v", late, bound)
	}
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	wantMayStillBeHeld(t, "Lock", err, g.names)
	g.settle(t)
	redistest.MustUnlock(t, other)
}
