package semaphore_test

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestTryAcquire_lost_reply_is_undone loses the reply of a TryAcquire
// that took its permits: TryAcquire fails, as Acquire does, and the
// permits are free again when it returns, with nothing left behind.
func TestTryAcquire_lost_reply_is_undone(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		s, name, drop := lostReplySemaphore(t, rc, 2)
		p, err := s.TryAcquire(redistest.Ctx(t, redistest.Hang), 2)
		if !errors.Is(err, redistest.ErrReplyDropped) || p != nil {
			t.Fatalf("TryAcquire with its reply lost = %v, %v; want nil and the lost reply's error", p, err)
		}
		if drop.Armed() {
			t.Fatal("the acquire was not sent")
		}
		wantAvailable(t, s, 2)
		redistest.AssertClean(t, rc, name)
	})
}
