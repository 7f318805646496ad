package multilock_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLock_failing_after_an_Unlock_in_doubt_gives_back_the_new_hold_of_the_member_in_doubt:
// the reply to b's release is lost, so m's Unlock is in doubt (a and c
// were released). m then tries to lock again while another owner holds
// c: the round takes a and b and fails on c. Lock and TryLock give back
// what the round took, b's new hold included (b's next Unlock, the retry
// of the one in doubt, would leave it be), so another owner can take b.
// m's next Unlock, the retry, still returns the outcome of the Unlock in
// doubt (no loss; ErrNotHeld for a and c) and the one after finds nothing
// held.
func TestLock_failing_after_an_Unlock_in_doubt_gives_back_the_new_hold_of_the_member_in_doubt(t *testing.T) {
	for _, what := range []string{"Lock", "TryLock"} {
		t.Run(what, func(t *testing.T) {
			ctx := redistest.Ctx(t, redistest.Hang)
			rc, c, cD, drop := droppedReleases(t)
			u := redistest.Unique(t)
			a, b, cc := "a-"+u, "b-"+u, "c-"+u
			m := multilock.New([]lockkit.Locker{reentrant.New(c, a), reentrant.New(cD, b), reentrant.New(c, cc)})
			redistest.MustLock(t, m)
			unlockInDoubt(ctx, t, m, drop)
			busy := reentrant.New(c, cc)
			redistest.MustLock(t, busy)

			var call lockCall
			for _, lc := range lockCalls(m) {
				if lc.what == what {
					call = lc
				}
			}
			err := call.call(redistest.Ctx(t, 300*time.Millisecond))
			if err == nil {
				t.Fatalf("%s while c is busy = nil; want it to fail", what)
			}
			other := reentrant.New(c, b)
			if ok, err := other.TryLock(ctx); !ok || err != nil {
				t.Fatalf("TryLock of b by another owner after m's failed %s = %v, %v; want true: m holds nothing", what, ok, err)
			}
			redistest.MustUnlock(t, other)
			redistest.MustUnlock(t, busy)

			err = m.Unlock(ctx)
			redistest.WantErr(t, err, lockkit.ErrNotHeld)
			if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != 2 {
				t.Fatalf("Unlock called again = %v; want the errors of a and c alone", err)
			}
			redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
			// c's release may keep it for m's process, which waited, for
			// 100 ms.
			for _, n := range []string{a, b, cc} {
				redistest.AssertCleanWithin(t, rc, n, time.Second)
			}
		})
	}
}
