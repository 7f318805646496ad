package notify_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// TestPassOn_runs_when_a_wake_up_finds_no_waiter checks both ways a
// wake-one can go unused: it arrives while the channel has no waiter (the
// last one left, the channel still lingers), or the last waiter leaves
// holding one.
func TestPassOn_runs_when_a_wake_up_finds_no_waiter(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		n := newNotifier(t, c)
		passed := make(chan string, 2)
		ch := redistest.Unique(t)
		w, err := n.Subscribe(redistest.Ctx(t, 10*time.Second), ch, notify.PassOn(func() { passed <- "unused" }))
		if err != nil {
			t.Fatal(err)
		}

		// Held by the waiter, not used: passed on when it leaves.
		publish(t, c, ch, notify.WakeOne)
		redistest.Eventually(t, 5*time.Second, "the wake-up to arrive", func() bool { return woken(w, 0) })
		select {
		case <-passed:
			t.Fatal("PassOn ran while a waiter held the wake-up")
		default:
		}
		w.Leave(false)
		redistest.Receive(t, passed, 5*time.Second, "PassOn after the waiter left with the wake-up")

		// Arriving while the channel lingers without waiters.
		publish(t, c, ch, notify.WakeOne)
		redistest.Receive(t, passed, 5*time.Second, "PassOn for a wake-up with no waiter")
	})
}

// TestPassOn_not_run_when_the_wake_up_is_used checks that a waiter that
// got what it waited for, or a wake-up another waiter takes, runs nothing.
func TestPassOn_not_run_when_the_wake_up_is_used(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		n := newNotifier(t, c)
		passed := make(chan struct{}, 2)
		ch := redistest.Unique(t)
		pass := notify.PassOn(func() { passed <- struct{}{} })
		a, err := n.Subscribe(redistest.Ctx(t, 10*time.Second), ch, pass)
		if err != nil {
			t.Fatal(err)
		}
		b, err := n.Subscribe(redistest.Ctx(t, 10*time.Second), ch, pass)
		if err != nil {
			t.Fatal(err)
		}
		publish(t, c, ch, notify.WakeOne)
		if !woken(a, 5*time.Second) {
			t.Fatal("head not woken")
		}
		a.Leave(false) // b takes the wake-up over
		if !woken(b, 5*time.Second) {
			t.Fatal("the wake-up was not passed to the next waiter")
		}
		b.Leave(true)
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-passed:
			t.Fatal("PassOn ran though every wake-up was used")
		default:
		}
	})
}

// TestHandoff_wakes_the_next_waiter checks that Handoff leaves and wakes
// the waiter after the caller, and only it.
func TestHandoff_wakes_the_next_waiter(t *testing.T) {
	_, rc := redistest.Mini(t)
	n := newNotifier(t, rc)
	ch := redistest.Unique(t)
	a, b, c := subscribe(t, n, ch), subscribe(t, n, ch), subscribe(t, n, ch)
	a.Handoff()
	if !woken(b, 5*time.Second) {
		t.Fatal("the next waiter was not woken")
	}
	if woken(c, 50*time.Millisecond) || woken(a, 0) {
		t.Fatal("Handoff woke another waiter than the next")
	}
	if got := n.Waiters(ch); got != 2 {
		t.Fatalf("%d waiters after Handoff, want 2", got)
	}
	b.Leave(true)
	c.Leave(false)
}

// TestID_differs_per_notifier checks that two notifiers never share an id.
func TestID_differs_per_notifier(t *testing.T) {
	_, c := redistest.Mini(t)
	a, b := newNotifier(t, c), newNotifier(t, c)
	if a.ID() == "" || a.ID() == b.ID() {
		t.Fatalf("ids %q and %q, want two distinct non-empty ids", a.ID(), b.ID())
	}
}

// TestLeave_and_Handoff_are_idempotent checks that a waiter that leaves
// again (a deferred Leave after a Handoff, say) changes nothing: the
// waiter behind it keeps its place and is not woken, and the channel is
// unsubscribed once that one leaves too.
func TestLeave_and_Handoff_are_idempotent(t *testing.T) {
	_, rc := redistest.Mini(t)
	n := newNotifier(t, rc)
	ch := redistest.Unique(t)
	a, b := subscribe(t, n, ch), subscribe(t, n, ch)
	a.Leave(true)
	a.Leave(false)
	a.Handoff()
	if got := n.Waiters(ch); got != 1 {
		t.Fatalf("%d waiters after one left three times, want 1", got)
	}
	if woken(b, 50*time.Millisecond) {
		t.Fatal("a repeated Leave or Handoff woke the other waiter")
	}
	b.Leave(true)
	if got := n.Channels(); got != 0 {
		t.Fatalf("Channels() = %d after every waiter left, want 0", got)
	}
	redistest.Eventually(t, 5*time.Second, "the channel to be unsubscribed", func() bool { return !n.Subscribed(ch) })
}

// TestPassOn_of_the_latest_Subscribe_wins checks PassOn's promise that
// the latest Subscribe's function is the one run for the channel: a
// wake-up the last waiter leaves unused is handed to it, not to the
// function an earlier waiter gave.
func TestPassOn_of_the_latest_Subscribe_wins(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	n := newNotifier(t, c)
	passed := make(chan string, 2)
	ch := redistest.Unique(t)
	ctx := redistest.Ctx(t, 10*time.Second)
	a, err := n.Subscribe(ctx, ch, notify.PassOn(func() { passed <- "first" }))
	if err != nil {
		t.Fatal(err)
	}
	b, err := n.Subscribe(ctx, ch, notify.PassOn(func() { passed <- "latest" }))
	if err != nil {
		t.Fatal(err)
	}
	a.Leave(true)
	publish(t, c, ch, notify.WakeOne)
	if !woken(b, 5*time.Second) {
		t.Fatal("the remaining waiter was not woken")
	}
	b.Leave(false)
	if got := redistest.Receive(t, passed, 5*time.Second, "PassOn for the unused wake-up"); got != "latest" {
		t.Fatalf("PassOn of the %s Subscribe ran, want the latest's", got)
	}
	_ = n.Close() // waits for anything PassOn started
	if len(passed) != 0 {
		t.Fatalf("PassOn ran again: %s", <-passed)
	}
}
