package notify_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// twoSlotsOnOneMaster returns two shard channels in distinct slots that
// the same master of cl serves, and that master.
func twoSlotsOnOneMaster(t *testing.T, cl *redistest.Cluster, cc *redis.ClusterClient) (a, b string, master *redistest.Server) {
	t.Helper()
	ctx := redistest.Ctx(t, 10*time.Second)
	a = "x:{" + redistest.Unique(t) + "}:ch"
	master = cl.MasterOf(t, a)
	slot, err := cc.ClusterKeySlot(ctx, a).Result()
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		b = "x:{" + redistest.Unique(t) + "}:ch"
		other, err := cc.ClusterKeySlot(ctx, b).Result()
		if err != nil {
			t.Fatal(err)
		}
		if other != slot && cl.MasterOf(t, b) == master {
			return a, b, master
		}
	}
	t.Fatal("no two slots found on one master")
	return "", "", nil
}

// TestSubscribe_follows_one_slot_moved_away_from_a_master_serving_another
// checks the promise of the package doc for a resharding that moves one
// slot of a master while the Notifier waits at another slot of it too:
// the moved channel is subscribed again at its slot's new master and the
// other stays subscribed at the old one, each reached by its master's
// SPUBLISH, and the Notifier then settles: it finds no more disconnects
// over several health intervals. The old code subscribed both channels
// again on one new connection, to the master of whichever came first,
// which refused the other: it replaced that connection again at once, and
// so on for ever, waking every waiter each time.
func TestSubscribe_follows_one_slot_moved_away_from_a_master_serving_another(t *testing.T) {
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	var disconnects atomic.Int64
	const health = 200 * time.Millisecond
	n := notify.New(cc, notify.HealthCheck(health), notify.OnDisconnect(func(error) { disconnects.Add(1) }))
	t.Cleanup(func() { _ = n.Close() })
	moved, stays, from := twoSlotsOnOneMaster(t, cl, cc)
	wMoved, wStays := subscribe(t, n, notify.ShardMark+moved), subscribe(t, n, notify.ShardMark+stays)
	defer wMoved.Leave(false)
	defer wStays.Leave(false)
	to := cl.OtherMaster(t, from)

	cl.MoveSlot(t, moved, to)
	tc := to.Client(t)
	wokenAtNewMaster(t, tc, tc, moved, wMoved)
	fc := from.Client(t)
	wokenAtNewMaster(t, fc, fc, stays, wStays)

	settled := disconnects.Load()
	deadline := time.After(10 * health)
	for done := false; !done; {
		select {
		case <-deadline:
			done = true
		case <-time.After(health):
			if got := disconnects.Load(); got != settled {
				t.Fatalf("%d more disconnects after the move settled: the Notifier keeps replacing its connection", got-settled)
			}
		}
	}
}
