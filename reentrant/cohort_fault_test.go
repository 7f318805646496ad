package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_holder_is_told_before_another_process_takes_a_stalled_lock:
// the server stops answering for longer than the lease while a Mutex
// holds the process's hold by hand-over in cohort mode. The watchdog
// cannot renew, so that Mutex is told it lost the lock (Lost closes, its
// Context ends with ErrLost) before the server lets another process take
// the lock, and its Unlock reports the loss; the Mutex that handed the
// hold over hears nothing.
func TestLocalHandoff_holder_is_told_before_another_process_takes_a_stalled_lock(t *testing.T) {
	srv := redistest.StartServer(t)
	const lease = time.Second
	lcA, lcB := redistest.Lockkit(t, srv.Client(t)), redistest.Lockkit(t, srv.Client(t))
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	opts := []lockkit.Option{handoff, lockkit.WithWatchdogTimeout(lease)}
	first, holder := reentrant.New(lcA, name, opts...), reentrant.New(lcA, name, opts...)
	redistest.MustLock(t, first)
	firstLost := first.Lost()
	got := lockLocal(ctx, t, holder, 1)
	redistest.MustUnlock(t, first) // hands the hold over in memory
	if err := redistest.Receive(t, got, 10*time.Second, "the hand-over"); err != nil {
		t.Fatal(err)
	}
	held := holder.Context(ctx)

	srv.Stall(t, 3*lease)
	other := redistest.LockAsync(ctx, reentrant.New(lcB, name))
	lost := holder.Lost()
	if err := redistest.Receive(t, other, redistest.Hang, "the other process's Lock"); err != nil {
		t.Fatal(err)
	}
	// The other process holds: the holder had been told by then.
	if !redistest.Closed(lost) || held.Err() == nil {
		t.Fatal("another process holds the lock, and the holder's lost signal or Context is still open")
	}
	redistest.WantErr(t, context.Cause(held), lockkit.ErrLost)
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
	if redistest.Closed(firstLost) {
		t.Error("the lost signal of the Mutex that handed the hold over closed")
	}
}
