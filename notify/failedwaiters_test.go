package notify_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// subscribeAsync starts n.Subscribe(ctx, ch) in a goroutine and returns
// the channel its error arrives on; a waiter it returns leaves (as having
// acquired) at once, so only the error matters.
func subscribeAsync(ctx context.Context, n *notify.Notifier, ch string) <-chan error {
	got := make(chan error, 1)
	go func() {
		w, err := n.Subscribe(ctx, ch)
		if w != nil {
			w.Leave(true)
		}
		got <- err
	}()
	return got
}

// unsendable returns a client of a new server, a Silence that holds up
// the lookup a shard channel's subscribe needs first (whether the server
// has sharded pub/sub), and a FailDials: with both, a subscribe can be
// held up and then made impossible to send.
func unsendable(t *testing.T) (*redis.Client, *redistest.Silence, *redistest.FailDials) {
	t.Helper()
	srv := redistest.StartServer(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	held := &redistest.Silence{Match: func(cmd redis.Cmder) bool { return cmd.Name() == "command" }}
	dials := &redistest.FailDials{}
	c.AddHook(held)
	c.AddHook(dials)
	return c, held, dials
}

// TestSubscribe_that_cannot_be_sent_fails_every_waiter_of_the_channel
// checks Subscribe's promise for a subscribe that cannot be sent when two
// waiters join the channel while it is on its way: both return the error
// (neither waits for its ctx), and a later Subscribe sends the subscribe
// anew and is confirmed. Here the lookup a shard channel needs first
// (whether the server has sharded pub/sub) is held up while the second
// waiter joins, and then fails because no connection can be opened. The
// old code failed only the first waiter: the second waited for its ctx
// (for ever without a deadline), and so did every later Subscribe to the
// channel, since nothing would subscribe it again.
func TestSubscribe_that_cannot_be_sent_fails_every_waiter_of_the_channel(t *testing.T) {
	c, held, dials := unsendable(t)
	n := newNotifier(t, c)
	wire := redistest.Unique(t)
	ch := notify.ShardMark + wire

	held.On()
	first := subscribeAsync(redistest.Ctx(t, redistest.Hang), n, ch)
	redistest.Eventually(t, 10*time.Second, "the first subscribe to be held up", func() bool { return held.Held() == 1 })
	second := subscribeAsync(redistest.Ctx(t, redistest.Hang), n, ch)
	redistest.Eventually(t, 10*time.Second, "the second waiter to join", func() bool { return n.Waiters(ch) == 2 })
	dials.Arm(1 << 20)
	held.Off()

	for i, got := range []<-chan error{first, second} {
		err := redistest.Receive(t, got, 10*time.Second, fmt.Sprintf("Subscribe %d to return the error of the subscribe that failed", i+1))
		if err == nil || ctxErr(err) {
			t.Fatalf("Subscribe %d = %v, want the error of the subscribe that could not be sent", i+1, err)
		}
	}
	if got := n.Waiters(ch); got != 0 {
		t.Fatalf("%d waiters left after the failed Subscribes, want 0", got)
	}

	dials.Arm(0)
	w := subscribe(t, n, ch)
	defer w.Leave(true)
	if err := c.SPublish(redistest.Ctx(t, 5*time.Second), wire, notify.WakeOne).Err(); err != nil {
		t.Fatal(err)
	}
	if !woken(w, 5*time.Second) {
		t.Fatal("the waiter of the channel subscribed anew was not woken")
	}
}

// ctxErr reports whether err is a context's error.
func ctxErr(err error) bool {
	return err == context.Canceled || err == context.DeadlineExceeded
}

// TestSubscribe_that_cannot_be_sent_fails_the_waiter_left_when_the_first_gave_up
// checks the same promise when the waiter whose Subscribe sent the
// subscribe gives up (its ctx ends) before the subscribe fails: the
// waiter still waiting returns the error rather than waiting for its ctx.
// The old code left the outcome of the subscribe to the first waiter
// alone, so the other waited for its ctx, even after the error.
func TestSubscribe_that_cannot_be_sent_fails_the_waiter_left_when_the_first_gave_up(t *testing.T) {
	c, held, dials := unsendable(t)
	n := newNotifier(t, c)
	ch := notify.ShardMark + redistest.Unique(t)

	held.On()
	ctx, giveUp := context.WithCancel(redistest.Ctx(t, redistest.Hang))
	first := subscribeAsync(ctx, n, ch)
	redistest.Eventually(t, 10*time.Second, "the first subscribe to be held up", func() bool { return held.Held() == 1 })
	second := subscribeAsync(redistest.Ctx(t, redistest.Hang), n, ch)
	redistest.Eventually(t, 10*time.Second, "the second waiter to join", func() bool { return n.Waiters(ch) == 2 })
	giveUp()
	if err := redistest.Receive(t, first, 10*time.Second, "the first Subscribe to give up"); err != context.Canceled {
		t.Fatalf("first Subscribe = %v, want context.Canceled", err)
	}
	dials.Arm(1 << 20)
	held.Off()
	err := redistest.Receive(t, second, 10*time.Second, "the second Subscribe to return the error of the subscribe that failed")
	if err == nil || ctxErr(err) {
		t.Fatalf("second Subscribe = %v, want the error of the subscribe that could not be sent", err)
	}
}
