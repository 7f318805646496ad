package multilock_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestChurn_of_many_names_leaves_nothing_behind: a thousand multi-locks,
// each of two reentrant locks of their own, locked, refused, waited for
// and given up, contended from two Clients, some holds lost (one member
// taken away) and some Unlocks in doubt, leave the Clients keeping no
// channel, watchdog hold or local entry, no goroutine, no subscriber on
// the server and no key but the fencing counters and the released tokens
// still in their 10 s.
func TestChurn_of_many_names_leaves_nothing_behind(t *testing.T) {
	redistest.Churn{
		New: func(c *lockkit.Client, name string) lockkit.Locker {
			return multilock.New([]lockkit.Locker{reentrant.New(c, name+"/a"), reentrant.New(c, name+"/b")})
		},
		Lose: func(ctx context.Context, rc *redis.Client, prefix, name string) error {
			return rc.Del(ctx, prefix+":{"+name+"/b}").Err()
		},
	}.Run(t)
}

// TestChurn_of_many_RedLock_names_leaves_nothing_behind is
// TestChurn_of_many_names_leaves_nothing_behind for RedLocks (of one node
// each: what a node keeps does not depend on how many there are).
func TestChurn_of_many_RedLock_names_leaves_nothing_behind(t *testing.T) {
	redistest.Churn{New: func(c *lockkit.Client, name string) lockkit.Locker {
		return multilock.NewRedLock([]*lockkit.Client{c}, name)
	}}.Run(t)
}
