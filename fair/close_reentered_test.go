package fair_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestClose_first_Unlock_of_a_reentered_hold_serves_the_next_waiter: a
// holder has entered the lock three times (a lease of a minute) when its
// Client closes, with x queued on another Client. The hold is reported
// lost, and the first Unlock, which returns ErrClosed,
// undoes all three acquires: the release wakes x, which gets the lock at
// once, not when the lease ends. The other Unlocks return ErrClosed too,
// and change nothing.
func TestClose_first_Unlock_of_a_reentered_hold_serves_the_next_waiter(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	lc := redistest.Lockkit(t, srv.Client(t))
	holder := e.on(lc).held(lockkit.WithWatchdogTimeout(time.Minute))
	redistest.MustLock(t, holder)
	redistest.MustLock(t, holder)
	x := e.mutex(lockkit.WithOwner("x"), fair.WithWaiterTimeout(time.Minute))
	gotX := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), x)
	e.waitQueue("x")

	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, holder.Lost(), redistest.Hang, "the hold to be reported lost")
	ctx := redistest.Ctx(t, 10*time.Second)
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrClosed)
	acquired(t, gotX, 10*time.Second, "x, after the first Unlock of the hold lost to Close")
	for range 2 {
		redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrClosed)
	}
	if n, err := x.HoldCount(ctx); n != 1 || err != nil {
		t.Fatalf("x's hold count after the closed holder's Unlocks = %d, %v; want 1", n, err)
	}
	e.wantQueue()
	redistest.MustUnlock(t, x)
}
