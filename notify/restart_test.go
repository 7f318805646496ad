package notify_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// TestWaiter_is_woken_across_a_server_restart checks what a waiter is
// promised when the server is killed and comes back: the break is
// reported (OnDisconnect) and wakes the waiter to re-check, and once the
// server is back the Notifier subscribes its channel again by itself, so a
// release published then reaches the waiter.
func TestWaiter_is_woken_across_a_server_restart(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	onDisconnect, disconnects := disconnects()
	n := notify.New(c, onDisconnect)
	t.Cleanup(func() { _ = n.Close() })
	ch := redistest.Unique(t)
	w := subscribe(t, n, ch)
	defer w.Leave(false)
	got := asleep(t, n, w, ch)

	srv.Kill(t)
	redistest.Receive(t, disconnects, redistest.Hang, "OnDisconnect after the server was killed")
	if err := redistest.Receive(t, got, redistest.Hang, "the waiter to be woken by the break"); err != nil {
		t.Fatalf("WaitTurn = %v", err)
	}
	srv.Restart(t)
	redistest.Eventually(t, redistest.Hang, "the channel to be subscribed on the restarted server", func() bool {
		subs, err := c.PubSubNumSub(redistest.Ctx(t, 5*time.Second), ch).Result()
		return err == nil && subs[ch] == 1
	})
	redistest.Eventually(t, redistest.Hang, "a release to reach the waiter after the restart", func() bool {
		publish(t, c, ch, notify.WakeOne)
		return woken(w, 200*time.Millisecond)
	})
	if !n.Subscribed(ch) {
		t.Fatal("Subscribed = false for the channel subscribed again")
	}
}

// TestShard_channel_on_a_standalone_server_survives_a_restart checks a
// shard channel (ShardMark) on a standalone Redis 7, which has sharded
// pub/sub: a release sent with SPUBLISH reaches its waiter, and does again
// once the server was killed and restarted and the Notifier subscribed
// the channel anew (with SSUBSCRIBE) by itself.
func TestShard_channel_on_a_standalone_server_survives_a_restart(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	n := newNotifier(t, c)
	wire := redistest.Unique(t)
	w := subscribe(t, n, notify.ShardMark+wire)
	defer w.Leave(false)
	if err := c.SPublish(redistest.Ctx(t, 5*time.Second), wire, notify.WakeOne).Err(); err != nil {
		t.Fatal(err)
	}
	if !woken(w, 5*time.Second) {
		t.Fatal("the waiter on a shard channel was not woken by SPUBLISH")
	}
	srv.Kill(t)
	srv.Restart(t)
	redistest.Eventually(t, redistest.Hang, "the shard channel to be subscribed on the restarted server", func() bool {
		subs, err := c.PubSubShardNumSub(redistest.Ctx(t, 5*time.Second), wire).Result()
		return err == nil && subs[wire] == 1
	})
	redistest.Eventually(t, redistest.Hang, "an SPUBLISH to reach the waiter after the restart", func() bool {
		if err := c.SPublish(redistest.Ctx(t, 5*time.Second), wire, notify.WakeOne).Err(); err != nil {
			return false // the client's pool reconnecting
		}
		return woken(w, 200*time.Millisecond)
	})
}
