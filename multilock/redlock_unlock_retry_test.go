package multilock_test

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_Unlock_retry_asks_only_the_nodes_whose_answer_was_lost: the
// replies of two of three nodes' releases are lost, so the outcome is
// unknown; the retried Unlock sends its release to those two nodes only,
// and none to the node that answered.
func TestRedLock_Unlock_retry_asks_only_the_nodes_whose_answer_was_lost(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 3)
	counters := make([]*redistest.Counter, len(clients))
	var drops []*redistest.DropReply
	for i, c := range clients {
		counters[i] = redistest.CountCommands(c)
		if i > 0 {
			h := &redistest.DropReply{Match: func(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "release") }}
			c.(*redis.Client).AddHook(h)
			drops = append(drops, h)
		}
	}
	name := redistest.Unique(t)
	// A lease long enough that no renewal is due while the test runs.
	r := multilock.NewRedLock(lockkits(t, clients), name, lockkit.WithWatchdogTimeout(4*redistest.Hang))
	redistest.MustLock(t, r)
	for _, h := range drops {
		h.Arm()
	}
	if err := r.Unlock(ctx); err == nil || errors.Is(err, lockkit.ErrLost) || errors.Is(err, lockkit.ErrNotHeld) {
		t.Fatalf("Unlock = %v; want the nodes' errors", err)
	}
	for _, c := range counters {
		c.Reset()
	}
	redistest.MustUnlock(t, r)
	for i, c := range counters {
		want := int64(1)
		if i == 0 {
			want = 0
		}
		if n := c.Scripts(); n != want {
			t.Errorf("node %d got %d scripts from the retried Unlock, want %d", i, n, want)
		}
	}
	assertCleanAll(t, clients, name)
}
