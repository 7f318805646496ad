package reentrant_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_ForceUnlock_by_a_Mutex_of_the_process_tells_its_holder_at_once:
// when a Mutex in cohort mode force-unlocks the process's own hold, the
// Mutex that holds it learns at once that it is lost, not at the
// watchdog's next renewal (a third of a 60 s lease away here), and the
// process's Mutex waiting in memory takes the lock from Redis.
func TestLocalHandoff_ForceUnlock_by_a_Mutex_of_the_process_tells_its_holder_at_once(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	opts := []lockkit.Option{handoff, lockkit.WithWatchdogTimeout(time.Minute)}
	holder, waiter, forcer := reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...)
	redistest.MustLock(t, holder)
	lost := holder.Token()
	got := lockLocal(ctx, t, waiter, 1)
	if ok, err := forcer.ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
	}
	freshHoldAfterLoss(ctx, t, holder, waiter, got, lost, 5*time.Second)
	redistest.MustUnlock(t, waiter)
	redistest.AssertClean(t, c, name)
}

// TestLocalHandoff_ForceUnlock_whose_ctx_ends_in_a_stall_tells_its_holder_once_it_runs:
// the test above with the server stalled: the ForceUnlock's ctx ends
// before the server answers, so that it fails with its outcome unknown,
// and its script runs once the stall ends. The Mutex that holds the
// process's hold learns then that it is lost, not at the watchdog's next
// renewal, and the Mutex waiting in memory takes the lock from Redis.
func TestLocalHandoff_ForceUnlock_whose_ctx_ends_in_a_stall_tells_its_holder_once_it_runs(t *testing.T) {
	srv, c, lc, name := hookedProcess(t, nil)
	ctx := redistest.Ctx(t, 30*time.Second)
	opts := []lockkit.Option{handoff, lockkit.WithWatchdogTimeout(time.Minute)}
	holder, waiter, forcer := reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...)
	if ok, err := forcer.ForceUnlock(ctx); ok || err != nil { // its script is loaded
		t.Fatalf("ForceUnlock of a free lock = %v, %v; want false", ok, err)
	}
	redistest.MustLock(t, holder)
	lost := holder.Token()
	got := lockLocal(ctx, t, waiter, 1)
	srv.Stall(t, 2*time.Second)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := forcer.ForceUnlock(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ForceUnlock in the stall = %v; want its ctx's deadline", err)
	}
	freshHoldAfterLoss(ctx, t, holder, waiter, got, lost, 10*time.Second)
	redistest.MustUnlock(t, waiter)
	redistest.AssertClean(t, c, name)
}

// TestLocalHandoff_ForceUnlock_of_its_own_hold_ends_it_as_its_Unlock_would:
// a Mutex in cohort mode that holds the process's hold, entered twice,
// force-unlocks it. It holds nothing afterwards, as outside cohort mode:
// its lost signal stays open and its Unlock reports ErrNotHeld. The
// process's Mutex waiting in memory takes the lock from Redis, with a
// larger token.
func TestLocalHandoff_ForceUnlock_of_its_own_hold_ends_it_as_its_Unlock_would(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	holder, waiter := heldInCohort(t, lc, name)
	redistest.MustLock(t, holder)
	forced := holder.Token()
	got := lockLocal(ctx, t, waiter, 1)
	if ok, err := holder.ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock of its own hold = %v, %v; want true", ok, err)
	}
	if err := redistest.Receive(t, got, 10*time.Second, "the waiter's Lock"); err != nil {
		t.Fatal(err)
	}
	if waiter.Token() <= forced {
		t.Errorf("the waiter's token %d after the forced hold's %d: want a fresh, larger one", waiter.Token(), forced)
	}
	if redistest.Closed(holder.Lost()) {
		t.Error("the lost signal closed after the Mutex's own ForceUnlock")
	}
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.MustUnlock(t, waiter)
	redistest.AssertClean(t, c, name)
}

// TestForceUnlock_frees_a_hold_however_many_times_it_was_entered: a hold
// entered three times is freed by one ForceUnlock, which reports it; the
// holder's next Unlock reports the loss, and another owner gets the lock
// at once.
func TestForceUnlock_frees_a_hold_however_many_times_it_was_entered(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	holder := reentrant.New(lc, name)
	for range 3 {
		redistest.MustLock(t, holder)
	}
	if ok, err := reentrant.New(lc, name).ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
	}
	other := reentrant.New(lc, name)
	if ok, err := other.TryLock(ctx); !ok || err != nil {
		t.Fatalf("TryLock by another owner after ForceUnlock = %v, %v; want true", ok, err)
	}
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
	redistest.WantHoldCount(t, holder, 0)
	redistest.MustUnlock(t, other)
	redistest.AssertClean(t, c, name)
}
