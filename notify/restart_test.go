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
	disconnects := make(chan struct{}, 1)
	n := notify.New(c, notify.OnDisconnect(func() {
		select {
		case disconnects <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(func() { _ = n.Close() })
	ch := redistest.Unique(t)
	w := subscribe(t, n, ch)
	defer w.Leave(false)
	got := make(chan error, 1)
	go func() { got <- w.WaitTurn(redistest.Ctx(t, time.Minute)) }() // no timer: only a wake-up ends it
	redistest.Eventually(t, 5*time.Second, "the waiter to sleep", func() bool { return n.Sleeping(ch) == 1 })

	srv.Kill(t)
	redistest.Receive(t, disconnects, redistest.Hang, "OnDisconnect after the server was killed")
	if err := redistest.Receive(t, got, redistest.Hang, "the waiter to be woken by the break"); err != nil {
		t.Fatalf("WaitTurn = %v", err)
	}
	srv.Restart(t)
	redistest.Eventually(t, redistest.Hang, "a release to reach the waiter after the restart", func() bool {
		publish(t, c, ch, notify.WakeOne)
		return woken(w, 200*time.Millisecond)
	})
	if !n.Subscribed(ch) {
		t.Fatal("Subscribed = false for the channel subscribed again")
	}
}
