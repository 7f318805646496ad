package reentrant_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, children()) }

// channelOf is the channel on which lock name's releases are published.
func channelOf(name string) string {
	return core.NewKeys(lockkit.DefaultPrefix, name).Channel
}

// waitAsleep waits until n goroutines of lc's process sleep in Lock for
// lock name, woken only by a release or the blocking lease's end.
func waitAsleep(t *testing.T, lc *lockkit.Client, name string, n int) {
	t.Helper()
	redistest.Eventually(t, 10*time.Second, fmt.Sprintf("%d waiters asleep", n), func() bool {
		return lc.Notifier().Sleeping(channelOf(name)) == n
	})
}
