package notify_test

import (
	"fmt"
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

// TestChannel_is_subscribed_again_soon_after_restarts_on_a_client_set_to_retry_long:
// go-redis opens a broken PubSub connection anew inside the request that
// found it broken, and retries that as its client is set to. On a client
// that retries every second for a minute (redistest.Patient), a restart
// often left the Notifier there, its channel unsubscribed, for a minute.
// The Notifier bounds each such request at two health intervals: after
// each of several restarts the channel is subscribed again within a few,
// and a release reaches the waiter.
func TestChannel_is_subscribed_again_soon_after_restarts_on_a_client_set_to_retry_long(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redistest.Patient(t, srv.Addr())
	admin := srv.Client(t)
	n := notify.New(c, notify.HealthCheck(200*time.Millisecond))
	t.Cleanup(func() { _ = n.Close() })
	ch := redistest.Unique(t)
	w := subscribe(t, n, ch)
	defer w.Leave(false)
	for i := range 8 {
		srv.Kill(t)
		srv.Restart(t)
		redistest.Eventually(t, 10*time.Second, fmt.Sprintf("the channel to be subscribed after restart %d", i+1), func() bool {
			subs, err := admin.PubSubNumSub(redistest.Ctx(t, 5*time.Second), ch).Result()
			return err == nil && subs[ch] == 1
		})
		for woken(w, 0) { // the break and the new subscription woke it
		}
		if got, err := admin.Publish(redistest.Ctx(t, 5*time.Second), ch, notify.WakeOne).Result(); got != 1 || err != nil {
			t.Fatalf("restart %d: PUBLISH = %d, %v; want 1 receiver", i+1, got, err)
		}
		if !woken(w, 5*time.Second) {
			t.Fatalf("restart %d: the release did not reach the waiter", i+1)
		}
	}
}
