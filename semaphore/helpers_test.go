package semaphore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// waitQueued waits until n Acquires wait in the queue of semaphore name.
func waitQueued(t *testing.T, rc redis.UniversalClient, name string, n int) {
	t.Helper()
	redistest.Eventually(t, redistest.Hang, "the waiters to queue", func() bool {
		got, err := rc.ZCard(context.Background(), "lockkit:{"+name+"}:waiters").Result()
		return err == nil && got == int64(n)
	})
}

// waitSleeping waits until n Acquires of c wait in the queue of semaphore
// name and each sleeps on its own channel (its subscription confirmed).
func waitSleeping(t *testing.T, rc redis.UniversalClient, c *lockkit.Client, name string, n int) {
	t.Helper()
	redistest.Eventually(t, redistest.Hang, "the waiters to sleep", func() bool {
		members, err := rc.ZRange(context.Background(), "lockkit:{"+name+"}:waiters", 0, -1).Result()
		if err != nil || len(members) != n {
			return false
		}
		for _, m := range members {
			_, id, _ := strings.Cut(m, ":")
			if c.Notifier().Sleeping(core.KeysFor(c, name).Chan("ch")+":"+id) != 1 {
				return false
			}
		}
		return true
	})
}

// newSemaphore returns a Semaphore of permits, made with opts on a Client
// of rc of its own, under a name unique to the test, and the name.
func newSemaphore(t *testing.T, rc redis.UniversalClient, permits int, opts ...lockkit.Option) (*semaphore.Semaphore, string) {
	t.Helper()
	name := redistest.Unique(t)
	return semaphore.New(redistest.Lockkit(t, rc), name, permits, opts...), name
}

// lostReplySemaphore adds a DropReply to rc and returns a newSemaphore of
// permits on rc, its name and the DropReply, armed: the reply to the next
// command sent through rc is lost.
func lostReplySemaphore(t *testing.T, rc redis.UniversalClient, permits int) (*semaphore.Semaphore, string, *redistest.DropReply) {
	t.Helper()
	drop := &redistest.DropReply{}
	rc.AddHook(drop)
	s, name := newSemaphore(t, rc, permits)
	drop.Arm()
	return s, name, drop
}

// semaphoreOfOne returns a Semaphore of 1 permit, named name, of c with
// opts.
func semaphoreOfOne(c *lockkit.Client, name string, opts ...lockkit.Option) *semaphore.Semaphore {
	return semaphore.New(c, name, 1, opts...)
}
