package notify_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// TestClose_ends_Wait_and_a_Subscribe_awaiting_confirmation checks what
// Close promises a user of the Notifier with the network to the server
// cut: a waiter blocked in Wait and a Subscribe whose confirmation cannot
// arrive both return ErrClosed, Done is closed, Close does not wait for
// the server, it leaves the client usable, and once the network is back
// the server holds no subscription of the closed Notifier.
func TestClose_ends_Wait_and_a_Subscribe_awaiting_confirmation(t *testing.T) {
	srv := redistest.StartServer(t)
	proxy := redistest.StartProxy(t, srv.Addr())
	c := proxy.Client(t)
	n := notify.New(c)
	held, asked := redistest.Unique(t), redistest.Unique(t)
	w := subscribe(t, n, held) // the connection is open and confirmed
	waited := make(chan error, 1)
	go func() { waited <- w.Wait(redistest.Ctx(t, time.Minute), -1) }()
	redistest.Eventually(t, 5*time.Second, "the waiter to sleep", func() bool { return n.Sleeping(held) == 1 })

	proxy.Cut()
	subscribed := make(chan error, 1)
	go func() {
		_, err := n.Subscribe(redistest.Ctx(t, time.Minute), asked)
		subscribed <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the Subscribe to wait", func() bool { return n.Waiters(asked) == 1 })
	if redistest.Closed(n.Done()) {
		t.Fatal("Done is closed before Close")
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if !redistest.Closed(n.Done()) {
		t.Fatal("Done is open after Close")
	}
	redistest.WantErr(t, redistest.Receive(t, waited, redistest.Hang, "Wait to return"), notify.ErrClosed)
	redistest.WantErr(t, redistest.Receive(t, subscribed, redistest.Hang, "Subscribe to return"), notify.ErrClosed)
	w.Leave(false)

	proxy.Heal()
	if err := c.Ping(redistest.Ctx(t, 10*time.Second)).Err(); err != nil {
		t.Fatalf("the client after the Notifier's Close: %v", err)
	}
	admin := srv.Client(t)
	redistest.Eventually(t, 10*time.Second, "the server to drop the closed Notifier's subscriptions", func() bool {
		subs, err := admin.PubSubNumSub(context.Background(), held, asked).Result()
		return err == nil && subs[held] == 0 && subs[asked] == 0
	})
}

// TestSubscribe_with_an_ended_ctx_fails_on_a_subscribed_channel checks
// that a Subscribe whose ctx has already ended returns ctx.Err() and joins
// nothing, even when the channel is subscribed already and it could
// return at once: as with semaphore.Acquire, an ended ctx wins.
func TestSubscribe_with_an_ended_ctx_fails_on_a_subscribed_channel(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	n := newNotifier(t, c)
	ch := redistest.Unique(t)
	w := subscribe(t, n, ch)
	defer w.Leave(false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 20 { // the old code chose between ctx and the confirmation at random
		got, err := n.Subscribe(ctx, ch)
		if err != context.Canceled {
			if got != nil {
				got.Leave(false)
			}
			t.Fatalf("Subscribe with an ended ctx = %v, want context.Canceled", err)
		}
	}
	if got := n.Waiters(ch); got != 1 {
		t.Fatalf("%d waiters after Subscribes with an ended ctx, want 1", got)
	}
}

// pubsubConns returns how many pub/sub connections the server of c has.
func pubsubConns(t *testing.T, c redis.UniversalClient) int {
	t.Helper()
	list, err := c.Do(redistest.Ctx(t, 5*time.Second), "CLIENT", "LIST", "TYPE", "pubsub").Text()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(list, "\n")
}

// TestLeave_closes_the_connection_once_no_channel_is_left checks the
// promise of New: the Notifier's pub/sub connection is closed a short
// linger after its last channel is left, without Close, and the next
// Subscribe opens one again.
func TestLeave_closes_the_connection_once_no_channel_is_left(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := srv.Client(t)
	c := srv.Client(t)
	n := newNotifier(t, c)
	ch := redistest.Unique(t)
	w := subscribe(t, n, ch)
	if got := pubsubConns(t, admin); got != 1 {
		t.Fatalf("%d pub/sub connections with a channel subscribed, want 1", got)
	}
	w.Leave(true)
	redistest.Eventually(t, 10*time.Second, "the pub/sub connection to be closed", func() bool {
		return pubsubConns(t, admin) == 0
	})
	w = subscribe(t, n, ch)
	defer w.Leave(true)
	publish(t, admin, ch, notify.WakeOne)
	if !woken(w, 5*time.Second) {
		t.Fatal("a waiter on the connection opened again was not woken")
	}
}

// TestPassOn_not_run_once_closed checks PassOn's promise that its function
// is not called once the Notifier is closed: a waiter that leaves after
// Close holding a wake-up it did not use hands it to nobody.
func TestPassOn_not_run_once_closed(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	n := notify.New(c)
	passed := make(chan struct{}, 1)
	ch := redistest.Unique(t)
	w, err := n.Subscribe(redistest.Ctx(t, 10*time.Second), ch, notify.PassOn(func() { passed <- struct{}{} }))
	if err != nil {
		t.Fatal(err)
	}
	publish(t, c, ch, notify.WakeOne)
	if !woken(w, 5*time.Second) {
		t.Fatal("waiter not woken")
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	w.Leave(false)
	_ = n.Close() // waits for anything Leave started
	select {
	case <-passed:
		t.Fatal("PassOn ran after Close")
	default:
	}
}

// TestClose_while_the_server_is_down checks that Close returns, and
// every later Subscribe fails with ErrClosed, while the server is killed
// and the Notifier is trying to reconnect; goleak in TestMain checks that
// nothing is left running.
func TestClose_while_the_server_is_down(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	onDisconnect, disconnects := disconnects()
	n := notify.New(c, onDisconnect)
	w := subscribe(t, n, redistest.Unique(t))
	srv.Kill(t)
	redistest.Receive(t, disconnects, redistest.Hang, "OnDisconnect after the server was killed")
	closed := make(chan error, 1)
	go func() { closed <- n.Close() }()
	if err := redistest.Receive(t, closed, redistest.Hang, "Close with the server down"); err != nil {
		t.Fatal(err)
	}
	w.Leave(false)
	_, err := n.Subscribe(redistest.Ctx(t, time.Second), redistest.Unique(t))
	redistest.WantErr(t, err, notify.ErrClosed)
}

// TestNew_and_Subscribe_ignore_nil_options checks that a nil Option or
// SubscribeOption (one chosen at run time, say) is ignored rather than
// panicking.
func TestNew_and_Subscribe_ignore_nil_options(t *testing.T) {
	_, c := redistest.Mini(t)
	n := notify.New(c, nil)
	t.Cleanup(func() { _ = n.Close() })
	w, err := n.Subscribe(redistest.Ctx(t, 10*time.Second), redistest.Unique(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Leave(true)
}

// TestNew_and_Close_do_no_IO checks New's promise: a Notifier that never
// subscribes opens no connection, so New and Close work whatever the
// state of the server.
func TestNew_and_Close_do_no_IO(t *testing.T) {
	var dials atomic.Int64
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", Dialer: func(context.Context, string, string) (net.Conn, error) {
		dials.Add(1)
		return nil, errors.New("test: no server")
	}})
	t.Cleanup(func() { _ = c.Close() })
	n := notify.New(c)
	if n.Channels() != 0 || n.Waiters("x") != 0 || n.Sleeping("x") != 0 || n.Subscribed("x") {
		t.Fatal("a new Notifier reports a channel")
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if got := dials.Load(); got != 0 {
		t.Fatalf("New and Close dialled the server %d times, want 0", got)
	}
}

// TestWait_and_WaitTurn_after_Close_return_ErrClosed checks ErrClosed's
// promise that Wait and WaitTurn return it once the Notifier is closed,
// not only when they were asleep at Close: a call made afterwards fails
// even with a wake-up pending or a zero timeout, so a lock's wait loop
// stops on a closed Client instead of trying again.
func TestWait_and_WaitTurn_after_Close_return_ErrClosed(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	n, ch, a, b := twoWaiters(t, c)
	defer a.Leave(false)
	defer b.Leave(false)
	publish(t, c, ch, notify.WakeAll)
	// Both are woken at once: once a has its wake-up, b holds one too.
	if !woken(a, 5*time.Second) {
		t.Fatal("waiter not woken by WakeAll")
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := redistest.Ctx(t, 10*time.Second)
	redistest.WantErr(t, b.WaitTurn(ctx), notify.ErrClosed)
	redistest.WantErr(t, a.Wait(ctx, 0), notify.ErrClosed)
	redistest.WantErr(t, b.Wait(ctx, time.Minute), notify.ErrClosed)
}

// TestPassOn_not_run_once_Close_began: the last waiter leaves with a
// wake-up it did not use, which schedules PassOn, and the Notifier is
// closed right after; PassOn does not run once Close has begun, round
// after round.
func TestPassOn_not_run_once_Close_began(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	for i := range 30 {
		n := notify.New(c)
		ch := redistest.Unique(t)
		var late atomic.Bool
		w, err := n.Subscribe(redistest.Ctx(t, 10*time.Second), ch, notify.PassOn(func() {
			select {
			case <-n.Done():
				late.Store(true)
			default:
			}
		}))
		if err != nil {
			t.Fatal(err)
		}
		publish(t, c, ch, notify.WakeOne)
		if !woken(w, 5*time.Second) {
			t.Fatalf("round %d: waiter not woken", i)
		}
		w.Leave(false) // nobody left to take the wake-up: PassOn
		_ = n.Close()
		if late.Load() {
			t.Fatalf("round %d: PassOn ran once Close had begun", i)
		}
	}
}
