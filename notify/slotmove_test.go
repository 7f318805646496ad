package notify_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestSubscribe_follows_a_slot_moved_to_another_shard checks the promise
// of the package doc that when the server drops a shard channel's
// subscription because its slot moved to another shard (a resharding:
// CLUSTER SETSLOT ... NODE), the Notifier wakes the channel's waiter to
// re-check and subscribes the channel again, at the slot's new master,
// whose SPUBLISH then reaches the waiter.
func TestSubscribe_follows_a_slot_moved_to_another_shard(t *testing.T) {
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	name, ch, w := shardWaiter(t, cc)

	from := cl.MasterOf(t, "{"+name+"}")
	to := cl.OtherMaster(t, from)
	cl.MoveSlot(t, ch, to)
	if !woken(w, 10*time.Second) {
		t.Fatal("the waiter was not woken when its slot moved away")
	}
	tc := to.Client(t)
	wokenAtNewMaster(t, tc, tc, ch, w)
}
