package notify_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// subscribing marks the ctx of the Subscribe that fails, for the dialer.
type subscribing struct{}

// TestSubscribe_works_again_after_one_that_failed_while_the_server_was_down
// checks a worker that calls Lock in a loop through an outage: a Subscribe
// made while no connection can be opened fails, and once the server is
// reachable again a Subscribe to the same channel is confirmed as usual.
// The old code kept counting the confirmation of the failed subscribe as
// owed, so every later Subscribe to that channel waited for its ctx (for
// ever without a deadline). The receive loop is held in OnDisconnect (a
// test-only block) so that the failed Subscribe falls between two of its
// reconnect attempts, as it does in an outage by chance.
func TestSubscribe_works_again_after_one_that_failed_while_the_server_was_down(t *testing.T) {
	srv := redistest.StartServer(t)
	var down atomic.Bool    // dials fail, as to a server that is down
	var others atomic.Int64 // dials tried for anything but the Subscribe below
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), DialerRetries: 1,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if ctx.Value(subscribing{}) == nil {
				others.Add(1)
			}
			if down.Load() {
				return nil, errors.New("test: server down")
			}
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}})
	t.Cleanup(func() { _ = c.Close() })
	broke, resume := make(chan struct{}, 1), make(chan struct{})
	var held atomic.Bool
	n := notify.New(c, notify.OnDisconnect(func(error) {
		if held.CompareAndSwap(false, true) {
			broke <- struct{}{}
			<-resume // hold the receive loop between two reconnects
		}
	}))
	t.Cleanup(func() { _ = n.Close() })
	release := sync.OnceFunc(func() { close(resume) })
	// Runs before Close, should the test fail while the loop is held.
	t.Cleanup(release)
	w := subscribe(t, n, redistest.Unique(t)) // keeps the connection open
	defer w.Leave(true)

	down.Store(true)
	if err := srv.Client(t).ClientKillByFilter(context.Background(), "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, broke, redistest.Hang, "the break to be seen")
	ch := redistest.Unique(t)
	tried := others.Load()
	if _, err := n.Subscribe(context.WithValue(redistest.Ctx(t, 10*time.Second), subscribing{}, true), ch); err == nil {
		t.Fatal("Subscribe with every dial failing succeeded")
	}
	// The failed waiter left, and the channel's unsubscribe goes out (and
	// fails) while the server is still down: with the receive loop held,
	// it is the only other dial.
	redistest.Eventually(t, redistest.Hang, "the unsubscribe to be tried", func() bool { return others.Load() > tried })
	down.Store(false)
	release()

	redistest.Eventually(t, redistest.Hang, "the channel to be subscribed after the outage", func() bool {
		w, err := n.Subscribe(redistest.Ctx(t, 2*time.Second), ch)
		if err != nil {
			return false
		}
		w.Leave(true)
		return true
	})
}
