package fair_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestUnlock_whose_reply_was_lost_settled_in_the_background_leaves_the_next_hold_be:
// the last Unlock of a holder runs (freeing the lock and waking x, first
// in line on another Client) but its reply is lost, and Unlock is never
// called again. x takes the lock at once; the holder settles its Unlock in
// the background under the same unlock id, which finds it done and
// releases nothing of x's hold. The next Unlock returns the kept outcome,
// nil, the holder's lost signal stays open, and the Unlock after it
// returns ErrNotHeld; x still holds the lock throughout.
func TestUnlock_whose_reply_was_lost_settled_in_the_background_leaves_the_next_hold_be(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	drop := &redistest.DropReply{Match: func(cmd redis.Cmder) bool { return fair.ScriptName(cmd) == "release" }}
	rc := srv.Client(t)
	rc.AddHook(drop)
	holder := e.on(redistest.Lockkit(t, rc)).held(lockkit.WithWatchdogTimeout(time.Minute))
	x := e.mutex(lockkit.WithOwner("x"), fair.WithWaiterTimeout(time.Minute))
	gotX := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), x)
	e.waitQueue("x")

	lost := holder.Lost()
	drop.Arm()
	if err := holder.Unlock(redistest.Ctx(t, 5*time.Second)); err == nil || drop.Armed() {
		t.Fatalf("Unlock whose reply was dropped = %v (dropped: %v); want an error", err, !drop.Armed())
	}
	acquired(t, gotX, 10*time.Second, "x, woken by the release whose reply was lost")
	redistest.Eventually(t, 10*time.Second, "the Unlock in doubt to be settled in the background", func() bool {
		return holder.Token() == 0
	})
	ctx := redistest.Ctx(t, 5*time.Second)
	redistest.WantHoldCount(t, x, 1)
	if err := holder.Unlock(ctx); err != nil {
		t.Fatalf("Unlock after the one in doubt was settled = %v, want nil", err)
	}
	if redistest.Closed(lost) {
		t.Fatal("the holder's lost signal closed, though its Unlock freed the lock")
	}
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.WantHoldCount(t, x, 1)
	e.wantQueue()
	redistest.MustUnlock(t, x)
}
