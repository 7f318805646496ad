package multilock_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestUnlock_retry_after_a_new_Lock_settles_the_member_in_doubt_and_releases_no_newer_hold:
// the reply to b's release is lost, so m's Unlock is in doubt (a was
// released); m then locks again before the Unlock is called again. That
// call is the retry of the one in doubt: it settles b's release and
// releases none of the holds the new Lock took, a's included, so that
// another owner still cannot take a or b. The next Unlock frees both.
func TestUnlock_retry_after_a_new_Lock_settles_the_member_in_doubt_and_releases_no_newer_hold(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	rc, c, cB, drop := droppedReleases(t)
	a, b, m := lockedPair(t, c, cB)
	unlockInDoubt(ctx, t, m, drop)

	redistest.MustLock(t, m)
	wantSettled(t, m.Unlock(ctx))
	for _, name := range []string{a, b} {
		if ok, err := reentrant.New(c, name).TryLock(ctx); ok || err != nil {
			t.Fatalf("TryLock of %s by another owner after the retry = %v, %v; want false: m locked it again", name, ok, err)
		}
	}
	redistest.MustUnlock(t, m)
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.AssertClean(t, rc, a)
	redistest.AssertClean(t, rc, b)
}
