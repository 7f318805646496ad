package semaphore_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// waitQueued waits until n Acquires wait in the queue of semaphore name.
func waitQueued(t *testing.T, rc redis.UniversalClient, name string, n int) {
	t.Helper()
	redistest.Eventually(t, hang, "the waiters to queue", func() bool {
		got, err := rc.ZCard(context.Background(), "lockkit:{"+name+"}:waiters").Result()
		return err == nil && got == int64(n)
	})
}
