package rwlock_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestTryRLock_held_up_past_its_undo_does_nothing holds a read acquire up
// in the network past its undo (the reader took its reply for lost, and
// TryRLock returned once the undo was done), then delivers it: it takes
// no read hold, and a writer takes the lock at once, not a lease later.
func TestTryRLock_held_up_past_its_undo_does_nothing(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc, name := redistest.Lockkit(t, c), redistest.Unique(t)
		writer := rwlock.New(lc, name)
		mustRLock(t, writer) // loads the read acquire, sent as EVALSHA below
		mustRUnlock(t, writer)
		held := &redistest.HoldUp{Match: isScript}
		c.AddHook(held)
		r := rwlock.New(lc, name)
		held.Arm()
		if ok, err := r.TryRLock(redistest.Ctx(t, waitTimeout)); ok || err == nil {
			t.Fatalf("TryRLock whose acquire was held up = %v, %v; want an error", ok, err)
		}
		if err := held.Deliver(redistest.Ctx(t, waitTimeout)); err != nil {
			t.Fatalf("delivering the acquire held up: %v", err)
		}
		if ok, err := writer.TryLock(redistest.Ctx(t, waitTimeout)); !ok || err != nil {
			t.Fatalf("TryLock of a writer = %v, %v; want true (the read acquire held up took a hold)", ok, err)
		}
		redistest.MustUnlock(t, writer)
	})
}
