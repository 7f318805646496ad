package semaphore_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/watchdog"
)

// TestAcquire_with_max_hold_is_renewed_until_then_lost holds every permit
// with a watchdog timeout of 1 s and WithMaxHold(2.5 s), never released,
// while a waiter waits: the watchdog renews the hold past its first
// leases, then stops at the maximum hold time; Lost closes, the permits
// free themselves for the waiter, and Release reports the loss with
// ErrLost and watchdog.ErrMaxHold.
func TestAcquire_with_max_hold_is_renewed_until_then_lost(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		const lease, maxHold = time.Second, 2500 * time.Millisecond
		s, name := newSemaphore(t, rc, 2, lockkit.WithWatchdogTimeout(lease), lockkit.WithMaxHold(maxHold))
		start := time.Now()
		p := mustAcquire(t, s, 2)
		got := acquireAsync(redistest.Ctx(t, redistest.Hang), t, semaphore.New(redistest.Lockkit(t, rc), name, 2), 1)
		redistest.Receive(t, p.Lost(), redistest.Hang, "Lost at the maximum hold time")
		if d := time.Since(start); d < maxHold {
			t.Fatalf("hold lost after %v, before its maximum hold time %v", d, maxHold)
		}
		q := served(t, got, "the waiter to be served once the hold ended")
		ctx := redistest.Ctx(t, redistest.Hang)
		redistest.WantErr(t, p.Release(ctx), lockkit.ErrLost, watchdog.ErrMaxHold)
		redistest.WantErr(t, p.Release(ctx), lockkit.ErrNotHeld)
		wantAvailable(t, s, 1)
		mustRelease(t, q)
		redistest.AssertClean(t, rc, name)
	})
}
