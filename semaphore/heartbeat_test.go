package semaphore_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestAcquire_waiter_keeps_its_place_past_the_waiter_timeout has a waiter
// sleep behind the only permit for longer than the waiter timeout (5 s)
// that its first attempt gave its queue entry: its heartbeats keep the
// entry, so a waiter that comes later stays behind it, and the release
// serves the first waiter, then the second.
func TestAcquire_waiter_keeps_its_place_past_the_waiter_timeout(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, redistest.Hang)
		s, name := newSemaphore(t, rc, 1)
		held := mustAcquire(t, s, 1)
		first := acquireAsync(ctx, t, semaphore.New(redistest.Lockkit(t, rc), name, 1), 1)
		waitQueued(t, rc, name, 1)
		timeouts := "lockkit:{" + name + "}:timeouts"
		entry, err := rc.ZRangeWithScores(ctx, timeouts, 0, -1).Result()
		if err != nil || len(entry) != 1 {
			t.Fatalf("timeouts = %v, %v; want the one waiter", entry, err)
		}
		deadline := int64(entry[0].Score)
		redistest.Eventually(t, redistest.Hang, "the server's clock to pass the waiter's first deadline", func() bool {
			now, err := rc.Time(ctx).Result()
			return err == nil && now.UnixMilli() > deadline+100
		})
		if n, err := rc.ZScore(ctx, timeouts, entry[0].Member.(string)).Result(); err != nil || int64(n) <= deadline {
			t.Fatalf("the waiter's deadline = %v, %v; want it renewed past %d", n, err, deadline)
		}
		second := acquireAsync(ctx, t, semaphore.New(redistest.Lockkit(t, rc), name, 1), 1)
		waitQueued(t, rc, name, 2)
		mustRelease(t, held)
		p := served(t, first, "the first waiter to be served")
		redistest.NotYet(t, second, "the second waiter was served with the first")
		mustRelease(t, p)
		q := served(t, second, "the second waiter to be served")
		mustRelease(t, q)
		redistest.AssertClean(t, rc, name)
	})
}
