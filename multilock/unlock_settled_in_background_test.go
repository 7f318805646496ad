package multilock_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestUnlock_in_doubt_never_called_again_is_settled_in_the_background_and_the_next_Unlock_returns_its_outcome:
// b's release is never sent, so m's Unlock is in doubt (a was released),
// and nobody calls it again. b settles it in the background: another
// owner takes b long before its lease, which b's watchdog renews for
// minutes, could end, and the lost signal of b's hold stays open. m's
// next Unlock then returns that kept outcome, no loss, with ErrNotHeld
// for a alone; so does it when m locked again first, and then it releases
// none of the new holds: the Unlock after it frees them.
func TestUnlock_in_doubt_never_called_again_is_settled_in_the_background_and_the_next_Unlock_returns_its_outcome(t *testing.T) {
	offAndOn(t, "unlocked", "locked_again", func(t *testing.T, relock bool) {
		ctx := redistest.Ctx(t, redistest.Hang)
		s := redistest.StartServer(t)
		rc, rcB := s.Client(t), s.Client(t)
		refuse := &redistest.RefuseSend{Match: func(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "release") }}
		rcB.AddHook(refuse)
		c, cB := redistest.Lockkit(t, rc), redistest.Lockkit(t, rcB)
		long := lockkit.WithWatchdogTimeout(5 * time.Minute)
		a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
		mb := reentrant.New(cB, b, long)
		m := multilock.New([]lockkit.Locker{reentrant.New(c, a, long), mb})
		redistest.MustLock(t, m)
		lost := mb.Lost()

		refuse.Arm()
		err := m.Unlock(ctx)
		if err == nil || errors.Is(err, lockkit.ErrNotHeld) || errors.Is(err, lockkit.ErrLost) || refuse.Armed() {
			t.Fatalf("Unlock whose release of b was not sent = %v (refused: %v); want b's error alone", err, !refuse.Armed())
		}
		other := reentrant.New(c, b, long)
		if err := other.Lock(ctx); err != nil {
			t.Fatalf("Lock of b by another owner after an Unlock in doubt never called again = %v; want b, well within its lease", err)
		}
		redistest.MustUnlock(t, other)
		if redistest.Closed(lost) {
			t.Fatal("the release of b settled in the background closed the lost signal of b's hold")
		}

		retrySettles(ctx, t, rc, c, m, a, b, relock)
	})
}
