package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_restart_that_lost_the_hold_lets_the_waiting_Mutex_in:
// the server restarts empty while a Mutex in cohort mode holds and
// another Mutex of the process waits in memory. The holder is told it
// lost the lock (at the watchdog's next renewal at the latest), and the
// waiter takes a fresh hold from Redis, with a larger token, without
// waiting for the lost holder's Unlock, which reports the loss.
func TestLocalHandoff_restart_that_lost_the_hold_lets_the_waiting_Mutex_in(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	lc := redistest.Lockkit(t, srv.Client(t))
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	opts := []lockkit.Option{handoff, lockkit.WithWatchdogTimeout(3 * time.Second)}
	holder, waiter := reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...)
	before := srv.RestartHolding(t, holder)
	got := redistest.LockAsync(ctx, waiter)
	held := holder.Context(context.Background())
	redistest.Receive(t, holder.Lost(), 10*time.Second, "the holder's lost signal after the restart")
	redistest.WantErr(t, context.Cause(held), lockkit.ErrLost)
	if err := redistest.Receive(t, got, 10*time.Second, "the waiter's Lock after the holder's loss"); err != nil {
		t.Fatal(err)
	}
	if waiter.Token() <= before {
		t.Errorf("the waiter's token %d after the lost hold's %d: want a larger one", waiter.Token(), before)
	}
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.MustUnlock(t, waiter)
	redistest.AssertClean(t, c, name)
}
