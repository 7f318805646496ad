package reentrant_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// channelOf is the channel on which lock name's releases are published.
func channelOf(name string) string {
	return internal.NewKeys(internal.DefaultPrefix, name).Channel
}

// waitAsleep waits until n goroutines of this process sleep in Lock for
// lock name on c, woken only by a release or the blocking lease's end.
func waitAsleep(t *testing.T, c redis.UniversalClient, name string, n int) {
	t.Helper()
	redistest.Eventually(t, 10*time.Second, fmt.Sprintf("%d waiters asleep", n), func() bool {
		return notify.For(c).Sleeping(channelOf(name)) == n
	})
}
