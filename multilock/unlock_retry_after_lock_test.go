package multilock_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
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

	retrySettles(ctx, t, rc, c, m, a, b, true)
}
