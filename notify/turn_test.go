package notify_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// TestWaitTurn_next_waiter_takes_the_timer_over_when_the_head_leaves
// checks the head's timer (doc.go, SetDeadline): only the head of the FIFO
// returns when the lock's deadline passes with no message; the waiter
// behind it sleeps on, and takes the timer over (returning at once, the
// deadline being past) when the head leaves without a wake-up.
func TestWaitTurn_next_waiter_takes_the_timer_over_when_the_head_leaves(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	n, ch, head, next := twoWaiters(t, c)
	behind := make(chan error, 1)
	go func() { behind <- next.WaitTurn(redistest.Ctx(t, time.Minute)) }()
	redistest.Eventually(t, 5*time.Second, "the second waiter to sleep", func() bool { return n.Sleeping(ch) == 1 })

	head.SetDeadline(50 * time.Millisecond)
	if err := head.WaitTurn(redistest.Ctx(t, redistest.Hang)); err != nil {
		t.Fatalf("the head's WaitTurn past the deadline = %v, want nil", err)
	}
	redistest.NotYet(t, behind, "the waiter behind the head returned, but only the head keeps a timer")
	head.Leave(true)
	if err := redistest.Receive(t, behind, redistest.Hang, "the new head to take the timer over"); err != nil {
		t.Fatalf("the new head's WaitTurn = %v, want nil", err)
	}
}

// TestSetDeadline_by_any_waiter_moves_the_sleeping_heads_timer checks
// SetDeadline's promise that the head's timer follows the channel's
// deadline whoever sets it: a head asleep without a timer returns once the
// deadline another waiter recorded passes; after a negative wait (the lock
// never expires by itself) it sleeps on until a wake-up.
func TestSetDeadline_by_any_waiter_moves_the_sleeping_heads_timer(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	n, ch, head, next := twoWaiters(t, c)

	got := asleep(t, n, head, ch)
	next.SetDeadline(50 * time.Millisecond)
	if err := redistest.Receive(t, got, redistest.Hang, "the head to return at the deadline set behind it"); err != nil {
		t.Fatalf("the head's WaitTurn = %v, want nil", err)
	}

	next.SetDeadline(-1)
	got = asleep(t, n, head, ch)
	redistest.NotYet(t, got, "the head returned with no deadline and no wake-up")
	publish(t, c, ch, notify.WakeOne)
	if err := redistest.Receive(t, got, redistest.Hang, "the head to be woken"); err != nil {
		t.Fatalf("the head's WaitTurn = %v, want nil", err)
	}
}
