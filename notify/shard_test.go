package notify_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// TestSubscribe_shard_channels_at_the_master_of_each_slot checks that a
// Notifier on a Cluster client subscribes shard channels at the master of
// their slot, one connection per master however many channels wait there,
// and that SPUBLISH reaches their waiters; and that a classic channel
// beside them keeps working.
func TestSubscribe_shard_channels_at_the_master_of_each_slot(t *testing.T) {
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	n := newNotifier(t, cc)
	ctx := redistest.Ctx(t, 10*time.Second)
	names := redistest.NamesOnDistinctMasters(t, cc, 2)
	var chans []string
	for _, name := range names {
		// Two channels in the slot of each name.
		chans = append(chans, "x:{"+name+"}:a", "x:{"+name+"}:b")
	}
	waiters := make([]*notify.Waiter, len(chans))
	for i, ch := range chans {
		waiters[i] = subscribe(t, n, notify.ShardMark+ch)
		defer waiters[i].Leave(false)
	}
	classic := subscribe(t, n, "x:classic")
	defer classic.Leave(false)

	for _, name := range names {
		master := cl.MasterOf(t, "{"+name+"}").Client(t)
		conns, err := master.ClientList(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(conns, "ssub=2"); got != 1 {
			t.Errorf("master of %q has %d connections with 2 shard channels, want 1:\n%s", name, got, conns)
		}
	}
	for i, ch := range chans {
		got, err := cc.SPublish(ctx, ch, notify.WakeOne).Result()
		if err != nil || got != 1 {
			t.Fatalf("SPUBLISH %s = %d, %v; want 1 subscriber", ch, got, err)
		}
		if !woken(waiters[i], 5*time.Second) {
			t.Fatalf("the waiter on %s was not woken", ch)
		}
	}
	publish(t, cc, "x:classic", notify.WakeOne)
	if !woken(classic, 5*time.Second) {
		t.Fatal("the classic channel's waiter was not woken")
	}
}

// TestSubscribe_follows_a_slot_to_its_new_master checks that after a
// CLUSTER FAILOVER, which leaves the old master in the shard as a replica
// that keeps its subscribers, a Notifier subscribes its shard channel again
// at the new master, whose SPUBLISH then counts it: a waker that learns
// from that count whether a process listens must see it.
func TestSubscribe_follows_a_slot_to_its_new_master(t *testing.T) {
	cl := redistest.StartClusterWithReplicas(t)
	cc := cl.Client(t)
	name, ch, w := shardWaiter(t, cc)

	promoted := cl.Failover(t, cl.MasterOf(t, "{"+name+"}"))
	// Woken to look again when it moved, and by what the new master sends.
	wokenAtNewMaster(t, promoted.Client(t), cc, ch, w)
}

// TestSubscribe_follows_the_slots_of_every_master_through_failovers: a
// CLUSTER FAILOVER may reach a Notifier first as the old master's
// SUNSUBSCRIBE, while the Cluster client's slot map still names that
// master, and go-redis reads the map again by itself only on a MOVED
// (which a connection that only receives never gets) or after a minute.
// The Notifier reads the map again for a while after its connection
// moved: with a shard channel at each master, after the failover of each
// in turn the channel is subscribed at the slot's new master and a
// message sent there reaches its waiter.
func TestSubscribe_follows_the_slots_of_every_master_through_failovers(t *testing.T) {
	cl := redistest.StartClusterWithReplicas(t)
	cc := cl.Client(t)
	n := notify.New(cc, notify.HealthCheck(200*time.Millisecond))
	t.Cleanup(func() { _ = n.Close() })
	names := redistest.NamesOnDistinctMasters(t, cc, 3)
	waiters := make([]*notify.Waiter, len(names))
	for i, name := range names {
		waiters[i] = subscribe(t, n, notify.ShardMark+"x:{"+name+"}:ch")
		defer waiters[i].Leave(false)
	}
	for i, name := range names {
		promoted := cl.Failover(t, cl.MasterOf(t, "{"+name+"}"))
		wokenAtNewMaster(t, promoted.Client(t), cc, "x:{"+name+"}:ch", waiters[i])
	}
}

// shardWaiter subscribes a Notifier of the Cluster client cc, which checks
// its connections every 200 ms, to a shard channel in the slot of a fresh
// name, and returns the name, the channel and its waiter; both end with
// the test.
func shardWaiter(t *testing.T, cc *redis.ClusterClient) (name, ch string, w *notify.Waiter) {
	t.Helper()
	n := notify.New(cc, notify.HealthCheck(200*time.Millisecond))
	t.Cleanup(func() { _ = n.Close() })
	name = redistest.Unique(t)
	ch = "x:{" + name + "}:ch"
	w = subscribe(t, n, notify.ShardMark+ch)
	t.Cleanup(func() { w.Leave(false) })
	return name, ch, w
}

// TestClassic_channel_on_a_Cluster_is_subscribed_again_after_its_master_is_killed:
// go-redis opens a Cluster client's classic pub/sub connection at the
// master of its first channel's slot, and opens it again where its slot
// map says, which it reads again by itself only on a MOVED or once a
// minute. When that master is killed, the Notifier has the map read again,
// so that the channel is subscribed at a live node within seconds (not a
// minute later), and a Subscribe to another classic channel succeeds.
func TestClassic_channel_on_a_Cluster_is_subscribed_again_after_its_master_is_killed(t *testing.T) {
	cl := redistest.StartClusterWithReplicas(t)
	cc := cl.Client(t)
	n := notify.New(cc, notify.HealthCheck(200*time.Millisecond))
	t.Cleanup(func() { _ = n.Close() })
	ch := "c:" + redistest.Unique(t)
	w := subscribe(t, n, ch)
	defer w.Leave(false)
	master := cl.MasterOf(t, ch)
	if subs, err := master.Client(t).PubSubNumSub(redistest.Ctx(t, 5*time.Second), ch).Result(); err != nil || subs[ch] != 1 {
		t.Fatalf("PUBSUB NUMSUB at the master of the channel's slot = %v, %v; want it subscribed there", subs, err)
	}
	cl.KillMaster(t, master)
	redistest.Eventually(t, 10*time.Second, "the channel to be subscribed at a live node", func() bool {
		for _, s := range cl.Servers() {
			if s == master {
				continue
			}
			subs, err := s.Client(t).PubSubNumSub(redistest.Ctx(t, 5*time.Second), ch).Result()
			if err == nil && subs[ch] == 1 {
				return true
			}
		}
		return false
	})
	w2, err := n.Subscribe(redistest.Ctx(t, 10*time.Second), "c2:"+redistest.Unique(t))
	if err != nil {
		t.Fatalf("Subscribe of another classic channel, its node down and five up: %v", err)
	}
	w2.Leave(false)
}
