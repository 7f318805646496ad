package notify_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// TestStandby_brings_the_heads_timer_forward_and_wakes_nothing_else
// checks a Standby message: the head of a channel whose timer was set for
// an hour tries again about the message's time later, not an hour later,
// and holds no wake-up to pass on when it leaves; a channel without
// waiters does not pass the message on (it is no wake-up to give away).
func TestStandby_brings_the_heads_timer_forward_and_wakes_nothing_else(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		n := newNotifier(t, c)
		passed := make(chan struct{}, 2)
		ch := redistest.Unique(t)
		w, err := n.Subscribe(redistest.Ctx(t, 10*time.Second), ch, notify.PassOn(func() { passed <- struct{}{} }))
		if err != nil {
			t.Fatal(err)
		}
		w.SetDeadline(time.Hour)
		done := make(chan error, 1)
		go func() { done <- w.WaitTurn(redistest.Ctx(t, time.Hour)) }()
		redistest.Eventually(t, 5*time.Second, "the head to sleep", func() bool { return n.Sleeping(ch) == 1 })

		publish(t, c, ch, fmt.Sprintf("%s%d", notify.Standby, 50))
		if err := redistest.Receive(t, done, 5*time.Second, "the head's wait to end"); err != nil {
			t.Fatalf("WaitTurn = %v", err)
		}
		w.Leave(false) // it had no wake-up to pass on

		// Lingering without waiters: nothing to pass on.
		publish(t, c, ch, notify.Standby+"50")
		publish(t, c, ch, notify.WakeOne) // passed on: the messages came in order
		redistest.Receive(t, passed, 5*time.Second, "PassOn for the wake-up")
		select {
		case <-passed: // a PassOn already under way arrives well within the bound
			t.Error("PassOn ran for a Standby message, or for a wake-up the head never had")
		case <-time.After(100 * time.Millisecond):
		}
	})
}

// TestStandby_outlasts_the_late_reply_of_an_attempt checks that a Standby
// message keeps its time against the reply of an attempt that was sent
// before it and comes after it (replies and messages come on different
// connections): the head still tries again about the message's time
// later, not at the end of the lease the reply gave, an hour.
func TestStandby_outlasts_the_late_reply_of_an_attempt(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		n := newNotifier(t, c)
		ctx := redistest.Ctx(t, 10*time.Second)
		ch, other := redistest.Unique(t), redistest.Unique(t)+"-other"
		w, err := n.Subscribe(ctx, ch)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Leave(false)
		o, err := n.Subscribe(ctx, other)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Leave(false)
		w.SetDeadline(time.Hour)

		publish(t, c, ch, notify.Standby+"50")
		// The messages of one connection come in order: once other's
		// wake-up came, so had the Standby message.
		publish(t, c, other, notify.WakeOne)
		if err := o.Wait(ctx, -1); err != nil {
			t.Fatal(err)
		}
		w.SetDeadline(time.Hour) // the attempt's reply, late
		if err := w.WaitTurn(redistest.Ctx(t, 5*time.Second)); err != nil {
			t.Fatalf("WaitTurn = %v; want its end at the Standby message's time", err)
		}

		// Once its time has passed, a Standby message leaves the next
		// one its own: the same again, with no wake-up between.
		w.SetDeadline(time.Hour)
		publish(t, c, ch, notify.Standby+"50")
		publish(t, c, other, notify.WakeOne)
		if err := o.Wait(ctx, -1); err != nil {
			t.Fatal(err)
		}
		w.SetDeadline(time.Hour)
		if err := w.WaitTurn(redistest.Ctx(t, 5*time.Second)); err != nil {
			t.Fatalf("second WaitTurn = %v; want its end at the second Standby message's time", err)
		}
	})
}
