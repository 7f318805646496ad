package semaphore_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestTryAcquire_held_up_past_its_undo_does_nothing holds an acquire of
// permits up in the network past its undo (the caller took its reply for
// lost, and TryAcquire returned once the undo was done), then delivers
// it: it takes no permit, and they are all available at once, not a
// lease later.
func TestTryAcquire_held_up_past_its_undo_does_nothing(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, rc redis.UniversalClient) {
		held := &redistest.HoldUp{Match: redistest.IsScript}
		rc.AddHook(held)
		s, _ := newSemaphore(t, rc, 2)
		mustRelease(t, mustAcquire(t, s, 1)) // loads the acquire, sent as EVALSHA below
		held.Arm()
		if p, err := s.TryAcquire(redistest.Ctx(t, redistest.Hang), 2); p != nil || err == nil {
			t.Fatalf("TryAcquire whose acquire was held up = %v, %v; want an error", p, err)
		}
		if err := held.Deliver(redistest.Ctx(t, redistest.Hang)); err != nil {
			t.Fatalf("delivering the acquire held up: %v", err)
		}
		wantAvailable(t, s, 2)
	})
}
