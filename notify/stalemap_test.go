package notify_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// loadsSlots reports whether cmd asks a Cluster node for the slot map.
func loadsSlots(cmd redis.Cmder) bool {
	args := cmd.Args()
	if len(args) < 2 || cmd.Name() != "cluster" {
		return false
	}
	sub, _ := args[1].(string)
	sub = strings.ToLower(sub)
	return sub == "slots" || sub == "shards" || sub == "nodes"
}

// TestSubscribe_of_a_moved_slot_does_not_spin_while_the_slot_map_is_stale:
// a slot the Notifier waits at moves to another master, and the Cluster
// client cannot load the new slot map for a while (its CLUSTER SLOTS is
// held up). Each subscribe at the old master is refused; the Notifier
// tries again, but paced (10 ms, doubling up to 1 s), not at once: over
// 1.5 s it replaces its connection a handful of times, not hundreds. Once
// the map loads, the channel is subscribed at the new master and its
// waiter is woken there.
func TestSubscribe_of_a_moved_slot_does_not_spin_while_the_slot_map_is_stale(t *testing.T) {
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	stale := &redistest.Silence{Match: loadsSlots, Max: redistest.Hang}
	defer stale.Off()
	cc.OnNewNode(func(c *redis.Client) { c.AddHook(stale) })
	var disconnects atomic.Int64
	n := notify.New(cc, notify.HealthCheck(200*time.Millisecond), notify.OnDisconnect(func(error) { disconnects.Add(1) }))
	t.Cleanup(func() { _ = n.Close() })
	moved, _, from := twoSlotsOnOneMaster(t, cl, cc)
	w := subscribe(t, n, notify.ShardMark+moved)
	defer w.Leave(false)
	to := cl.OtherMaster(t, from)

	stale.On()
	before := disconnects.Load()
	cl.MoveSlot(t, moved, to)
	redistest.Eventually(t, 10*time.Second, "the Notifier to learn of the move", func() bool { return disconnects.Load() > before })
	redistest.Eventually(t, 10*time.Second, "the slot map's load to be held up", func() bool { return stale.Held() > 0 })
	held := time.NewTimer(1500 * time.Millisecond)
	<-held.C
	got := disconnects.Load() - before
	t.Logf("%d disconnects while the slot map was stale", got)
	if got > 30 {
		t.Fatalf("%d disconnects while the slot map was stale, want a handful: the Notifier spins", got)
	}
	stale.Off()
	tc := to.Client(t)
	wokenAtNewMaster(t, tc, tc, moved, w)
}
