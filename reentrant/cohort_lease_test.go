package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_reentry_keeps_the_fixed_lease: in cohort mode a
// re-entry counts in memory and does not start a fixed lease anew (as it
// does without the option): the lease left after it is no longer than
// before it, and the hold is lost when the first lease ends, when another
// process gets the lock.
func TestLocalHandoff_reentry_keeps_the_fixed_lease(t *testing.T) {
	c, lc, _, name := twoProcesses(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	const lease = 2 * time.Second
	m := reentrant.New(lc, name, handoff, lockkit.WithLease(lease))
	redistest.MustLock(t, m)
	var before time.Duration
	redistest.Eventually(t, 10*time.Second, "the lease to age", func() bool {
		var err error
		if before, err = m.TTL(ctx); err != nil {
			t.Fatal(err)
		}
		return before > 0 && before < lease*3/4
	})
	redistest.MustLock(t, m)
	redistest.WantHoldCount(t, m, 2)
	if after, err := m.TTL(ctx); err != nil || after > before {
		t.Fatalf("TTL after a re-entry = %v, %v; want at most %v (the lease started anew)", after, err, before)
	}
	redistest.Receive(t, m.Lost(), 10*time.Second, "the lost signal at the end of the first lease")
	eventuallyTakenBy(t, ctx, reentrant.New(redistest.Lockkit(t, c), name))
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrLost)
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.AssertClean(t, c, name)
}

// eventuallyTakenBy waits until other gets the lock, and releases it.
func eventuallyTakenBy(t *testing.T, ctx context.Context, other *reentrant.Mutex) {
	t.Helper()
	redistest.Eventually(t, 10*time.Second, "another process to get the lock", func() bool {
		ok, err := other.TryLock(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	})
	redistest.MustUnlock(t, other)
}

// TestLocalHandoff_fixed_lease_end_reaches_the_Mutex_holding_it_then: a
// hold handed over in memory keeps the fixed lease of the process's hold
// in Redis; when it ends, the Mutex holding it then is told (its lost
// signal, its Context, its Unlock), not the one that handed it over, and
// another process gets the lock.
func TestLocalHandoff_fixed_lease_end_reaches_the_Mutex_holding_it_then(t *testing.T) {
	c, lc, _, name := twoProcesses(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	opts := []lockkit.Option{handoff, lockkit.WithLease(time.Second)}
	first, second := reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...)
	redistest.MustLock(t, first)
	firstLost := first.Lost()
	handOver(ctx, t, first, second)
	held := second.Context(context.Background())
	redistest.Receive(t, second.Lost(), 10*time.Second, "the lost signal of the Mutex holding the hold when its lease ended")
	redistest.Receive(t, held.Done(), 10*time.Second, "the Context of that Mutex")
	redistest.WantErr(t, context.Cause(held), lockkit.ErrLost)
	if redistest.Closed(firstLost) {
		t.Error("the lost signal of the Mutex that handed the hold over closed")
	}
	eventuallyTakenBy(t, ctx, reentrant.New(redistest.Lockkit(t, c), name))
	redistest.WantErr(t, second.Unlock(ctx), lockkit.ErrLost)
	redistest.WantErr(t, first.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.AssertClean(t, c, name)
}
