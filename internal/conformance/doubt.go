package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// testUnlockInDoubtNeverRetried checks that an Unlock whose release never
// reached the server, and which is never called again (a deferred Unlock
// whose error is dropped), does not keep the lock held: the lock settles
// it in the background, and another owner gets the lock long before the
// lease, which the watchdog would renew for as long as the holder lives,
// could end it. The holder's next Unlock then reports the outcome, and
// its lost signal stays open (a composition's members, which have one,
// check that).
func testUnlockInDoubtNeverRetried(t *testing.T, e *env) {
	name := redistest.Unique(t)
	refuse := &redistest.RefuseSend{Match: redistest.IsScript}
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	m := e.k.New(redistest.Lockkit(t, e.newRC(t, refuse)), name, long)
	redistest.MustLock(t, m)
	refuse.Arm()
	if err := m.Unlock(ctx(t)); err == nil || refuse.Armed() {
		t.Fatalf("Unlock whose release was not sent = %v (refused: %v); want an error", err, !refuse.Armed())
	}
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	other := e.lock(name, long)
	if err := other.Lock(c); err != nil {
		t.Fatalf("Lock by another owner after an Unlock in doubt never called again = %v; want the lock well within the lease", err)
	}
	redistest.MustUnlock(t, other)
	if _, ok := m.(tokener); !ok {
		// A composition: its Unlock called again reports the members it
		// released the first time as not held.
		return
	}
	if err := m.Unlock(ctx(t)); err != nil {
		t.Fatalf("Unlock after its release was settled = %v, want nil", err)
	}
	wantNotLost(t, m, "the release settled in the background closed the lost signal")
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
}
