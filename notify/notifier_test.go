package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

func TestMain(m *testing.M) { redistest.Main(m, nil) }

func subscribe(t *testing.T, n *notify.Notifier, ch string) *notify.Waiter {
	t.Helper()
	w, err := n.Subscribe(redistest.Ctx(t, 10*time.Second), ch)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	return w
}

// disconnects returns an OnDisconnect option that reports each break of
// the connection on the channel it returns, dropping what nobody reads.
func disconnects() (notify.Option, <-chan struct{}) {
	ch := make(chan struct{}, 8)
	return notify.OnDisconnect(func(error) {
		select {
		case ch <- struct{}{}:
		default:
		}
	}), ch
}

// asleep has w wait for its turn with no timer, so that only a wake-up
// ends the wait, and returns, once w sleeps on channel ch of n, the
// channel WaitTurn's result arrives on.
func asleep(t *testing.T, n *notify.Notifier, w *notify.Waiter, ch string) <-chan error {
	t.Helper()
	got := make(chan error, 1)
	go func() { got <- w.WaitTurn(redistest.Ctx(t, time.Minute)) }()
	redistest.Eventually(t, 5*time.Second, "the waiter to sleep", func() bool { return n.Sleeping(ch) == 1 })
	return got
}

// twoWaiters returns a new Notifier of c and two waiters subscribed, a
// first, to a channel ch of their own. Those of them that have not left
// by the end of the test leave then, b first, as having acquired (so
// nothing is passed on), before the Notifier is closed.
func twoWaiters(t *testing.T, c redis.UniversalClient) (n *notify.Notifier, ch string, a, b *notify.Waiter) {
	t.Helper()
	n = newNotifier(t, c)
	ch = redistest.Unique(t)
	a, b = subscribe(t, n, ch), subscribe(t, n, ch)
	t.Cleanup(func() {
		b.Leave(true)
		a.Leave(true)
	})
	return n, ch, a, b
}

// woken reports whether w is woken within d.
func woken(w *notify.Waiter, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return w.Wait(ctx, -1) == nil
}

// wokenAtNewMaster waits until the shard channel ch is subscribed at
// master, the new master of its slot, drops the wake-ups w had by then
// (the move wakes it to look again), and checks that a message published
// through pub reaches the one subscriber and wakes w.
func wokenAtNewMaster(t *testing.T, master *redis.Client, pub redis.Cmdable, ch string, w *notify.Waiter) {
	t.Helper()
	ctx := redistest.Ctx(t, 10*time.Second)
	var subs int64
	var err error
	defer func() {
		if t.Failed() {
			t.Logf("PUBSUB SHARDNUMSUB %s at %s last answered %d, %v", ch, master.Options().Addr, subs, err)
		}
	}()
	redistest.Eventually(t, 10*time.Second, "the channel subscribed at the slot's new master", func() bool {
		var got map[string]int64
		got, err = master.PubSubShardNumSub(ctx, ch).Result()
		subs = got[ch]
		return err == nil && subs == 1
	})
	for woken(w, 0) {
	}
	// The Notifier may still replace its connection once (a health check
	// that looks the slot up again): publish until the message reaches
	// the subscriber.
	redistest.Eventually(t, 10*time.Second, "SPUBLISH at the new master to reach the subscriber", func() bool {
		got, err := pub.SPublish(ctx, ch, notify.WakeOne).Result()
		return err == nil && got == 1
	})
	if !woken(w, 5*time.Second) {
		t.Fatal("the waiter was not woken by the new master's message")
	}
}

func publish(t *testing.T, c redis.UniversalClient, ch, msg string) {
	t.Helper()
	if err := c.Publish(context.Background(), ch, msg).Err(); err != nil {
		t.Fatal(err)
	}
}

// backends are the kinds of Redis the notifier tests run on.
var backends = redistest.SingleNode()

func TestWakeOne_wakes_head_only(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		n, ch, a, b := twoWaiters(t, c)
		publish(t, c, ch, notify.WakeOne)
		if !woken(a, 5*time.Second) {
			t.Fatal("head not woken")
		}
		if woken(b, 100*time.Millisecond) {
			t.Fatal("second waiter woken by a wake-one message")
		}
		a.Leave(true)
		b.Leave(false)
		if n.Channels() != 0 {
			t.Fatal("channel still subscribed after everyone left")
		}
	})
}

func TestWakeAll_wakes_every_waiter(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		n := newNotifier(t, c)
		ch := redistest.Unique(t)
		ws := []*notify.Waiter{subscribe(t, n, ch), subscribe(t, n, ch), subscribe(t, n, ch)}
		publish(t, c, ch, notify.WakeAll)
		for i, w := range ws {
			if !woken(w, 5*time.Second) {
				t.Fatalf("waiter %d not woken", i)
			}
			w.Leave(true)
		}
	})
}

func TestWake_before_wait_is_kept(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	n := newNotifier(t, c)
	ch, marker := redistest.Unique(t), redistest.Unique(t)
	w, m := subscribe(t, n, ch), subscribe(t, n, marker)
	defer w.Leave(true)
	defer m.Leave(true)
	publish(t, c, ch, notify.WakeOne)
	publish(t, c, marker, notify.WakeOne)
	// Messages arrive in order on the one connection: once m is woken, the
	// wake-up for w was delivered while w was not waiting.
	if !woken(m, 5*time.Second) {
		t.Fatal("marker waiter not woken")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Wait(ctx, -1); err != nil {
		t.Fatalf("Wait = %v; the wake-up that came before Wait was lost", err)
	}
}

func TestLeave_passes_wakeup_on(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	_, ch, a, b := twoWaiters(t, c)
	publish(t, c, ch, notify.WakeOne)
	if !woken(a, 5*time.Second) {
		t.Fatal("head not woken")
	}
	// a gives up without the lock: b must get the wake-up.
	a.Leave(false)
	if !woken(b, 5*time.Second) {
		t.Fatal("wake-up not passed on by a waiter that left")
	}
	b.Leave(true)
}

func TestWait_timeout_and_ctx(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	n := newNotifier(t, c)
	w := subscribe(t, n, redistest.Unique(t))
	defer w.Leave(false)
	if err := w.Wait(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("Wait with timeout = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Wait(ctx, -1); err != context.Canceled {
		t.Fatalf("Wait with cancelled ctx = %v", err)
	}
}

func TestReconnect_wakes_every_waiter(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	_, ch, a, b := twoWaiters(t, c)
	if err := c.ClientKillByFilter(context.Background(), "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	if !woken(a, 5*time.Second) || !woken(b, 5*time.Second) {
		t.Fatal("waiters not woken after the connection broke")
	}
	// Subscribed again: messages flow as before.
	redistest.Eventually(t, 5*time.Second, "a message after reconnect", func() bool {
		publish(t, c, ch, notify.WakeAll)
		return woken(a, 50*time.Millisecond)
	})
}

func TestSubscribe_ctx_ended(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	n := newNotifier(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := n.Subscribe(ctx, redistest.Unique(t)); err == nil {
		t.Fatal("Subscribe with ended ctx succeeded")
	}
	if n.Channels() != 0 {
		t.Fatal("channel left behind")
	}
}

// subscribes returns how many SUBSCRIBE commands the server has run.
func subscribes(t *testing.T, c redis.UniversalClient) int64 {
	t.Helper()
	return redistest.CommandCalls(t, c)["subscribe"]
}

func TestLeave_lingers_then_unsubscribes(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	n := newNotifier(t, c)
	ch := redistest.Unique(t)
	subscribe(t, n, ch).Leave(true)
	if got := n.Channels(); got != 0 {
		t.Fatalf("Channels() = %d after the last waiter left, want 0", got)
	}
	before := subscribes(t, c)
	// Back within the linger: the subscription is reused, and it works.
	w := subscribe(t, n, ch)
	if got := subscribes(t, c); got != before {
		t.Fatalf("%d SUBSCRIBE sent for a channel still lingering", got-before)
	}
	publish(t, c, ch, notify.WakeOne)
	if !woken(w, 5*time.Second) {
		t.Fatal("waiter on a revived channel not woken")
	}
	w.Leave(true)
	// Then the linger ends and the server drops the subscription.
	redistest.Eventually(t, 5*time.Second, "the channel to be unsubscribed", func() bool {
		subs, err := c.PubSubNumSub(context.Background(), ch).Result()
		return err == nil && subs[ch] == 0
	})
}

// newNotifier returns a Notifier of c, closed in t.Cleanup.
func newNotifier(t testing.TB, c redis.UniversalClient) *notify.Notifier {
	n := notify.New(c)
	t.Cleanup(func() { _ = n.Close() })
	return n
}

func TestClose_wakes_waiters_with_ErrClosed(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		n := notify.New(c)
		ch := redistest.Unique(t)
		w := subscribe(t, n, ch)
		got := asleep(t, n, w, ch)
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		redistest.WantErr(t, redistest.Receive(t, got, 5*time.Second, "WaitTurn to return"), notify.ErrClosed)
		w.Leave(false)
		_, err := n.Subscribe(redistest.Ctx(t, time.Second), ch)
		redistest.WantErr(t, err, notify.ErrClosed)
		if err := n.Close(); err != nil {
			t.Fatalf("second Close = %v", err)
		}
	})
}

// healthCheckedSleeper makes a Notifier of c that checks its connection
// every 100 ms, and returns a waiter of it asleep on a channel of its own
// (ch), the outcome of the waiter's WaitTurn, and a channel that gets a
// value at each disconnect the Notifier finds.
func healthCheckedSleeper(t *testing.T, c redis.UniversalClient) (ch string, w *notify.Waiter, got <-chan error, disconnected <-chan struct{}) {
	t.Helper()
	onDisconnect, disconnected := disconnects()
	n := notify.New(c, notify.HealthCheck(100*time.Millisecond), onDisconnect)
	t.Cleanup(func() { _ = n.Close() })
	ch = redistest.Unique(t)
	w = subscribe(t, n, ch)
	t.Cleanup(func() { w.Leave(false) })
	return ch, w, asleep(t, n, w, ch), disconnected
}
