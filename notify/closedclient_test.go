package notify_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// TestClosed_go_redis_client_fails_an_unconfirmed_Subscribe_and_wakes_waiters_once
// closes the go-redis client under a Notifier (left open) while a waiter
// sleeps on a confirmed channel and a Subscribe, its confirmation held up
// by a cut network, awaits it: the Subscribe returns an error matching
// redis.ErrClosed instead of waiting for a connection that never opens
// again, the waiter is woken, and the disconnect is reported at most
// twice (the connection's break, then the client found closed), not
// again and again as the connection fails to reopen.
func TestClosed_go_redis_client_fails_an_unconfirmed_Subscribe_and_wakes_waiters(t *testing.T) {
	srv := redistest.StartServer(t)
	proxy := redistest.StartProxy(t, srv.Addr())
	c := proxy.Client(t)
	var disconnects atomic.Int64
	n := notify.New(c, notify.OnDisconnect(func(error) { disconnects.Add(1) }))
	t.Cleanup(func() { _ = n.Close() })
	held, asked := redistest.Unique(t), redistest.Unique(t)
	w := subscribe(t, n, held)
	defer w.Leave(false)
	waited := make(chan error, 1)
	go func() { waited <- w.Wait(redistest.Ctx(t, time.Minute), -1) }()
	redistest.Eventually(t, 5*time.Second, "the waiter to sleep", func() bool { return n.Sleeping(held) == 1 })

	proxy.Cut()
	subscribed := subscribeAsync(redistest.Ctx(t, time.Minute), n, asked)
	redistest.Eventually(t, 5*time.Second, "the Subscribe to wait", func() bool { return n.Waiters(asked) == 1 })
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := redistest.Receive(t, subscribed, 5*time.Second, "Subscribe to return"); !errors.Is(err, redis.ErrClosed) {
		t.Errorf("Subscribe = %v; want an error matching redis.ErrClosed", err)
	}
	if err := redistest.Receive(t, waited, 5*time.Second, "the waiter to be woken"); err != nil {
		t.Errorf("Wait = %v; want nil (woken)", err)
	}
	reportedOnce(t, &disconnects)
}

// TestClosed_Cluster_client_wakes_a_shard_channels_waiter_once: a shard
// connection on a Cluster is opened through the client of its master,
// which go-redis also closes when it drops a master from its map. Closing
// the Cluster client itself under a Notifier wakes the waiter, and the
// Notifier does not take it for a dropped master and open the connection
// again and again, reporting a disconnect each time.
func TestClosed_Cluster_client_wakes_a_shard_channels_waiter_once(t *testing.T) {
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	var disconnects atomic.Int64
	n := notify.New(cc, notify.HealthCheck(100*time.Millisecond), notify.OnDisconnect(func(error) { disconnects.Add(1) }))
	t.Cleanup(func() { _ = n.Close() })
	ch := notify.ShardMark + "x:{" + redistest.Unique(t) + "}:ch"
	w := subscribe(t, n, ch)
	defer w.Leave(false)
	waited := make(chan error, 1)
	go func() { waited <- w.Wait(redistest.Ctx(t, time.Minute), -1) }()
	redistest.Eventually(t, 5*time.Second, "the waiter to sleep", func() bool { return n.Sleeping(ch) == 1 })

	if err := cc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := redistest.Receive(t, waited, 5*time.Second, "the waiter to be woken"); err != nil {
		t.Errorf("Wait = %v; want nil (woken)", err)
	}
	reportedOnce(t, &disconnects)
}

// reportedOnce checks that a disconnect was reported, and that no more
// than 2 are within 3 s: each reopening of a connection of a closed
// client would report one, 10 ms to 1 s apart.
func reportedOnce(t *testing.T, disconnects *atomic.Int64) {
	t.Helper()
	redistest.Eventually(t, 5*time.Second, "the disconnect to be reported", func() bool { return disconnects.Load() >= 1 })
	window := time.NewTimer(3 * time.Second)
	defer window.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for disconnects.Load() <= 2 {
		select {
		case <-window.C:
			return
		case <-tick.C:
		}
	}
	t.Errorf("%d disconnects reported; want at most 2", disconnects.Load())
}
