package fair_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestTryLock_of_a_hold_lost_to_Close_leaves_no_queue_entry: w takes the
// lock from the head of the queue; a TryLock of w whose acquire the server
// answers only once w's Client has closed (w's hold reported lost)
// re-enters the hold still in Redis, takes it back as stale, which puts w
// back first in line where it took the hold from, and cannot try again:
// it returns ErrClosed. No entry of w is left in the queue: x, on another
// Client, gets the lock at once, not a waiter timeout (a minute here)
// later, and nothing of the lock is left.
func TestTryLock_of_a_hold_lost_to_Close_leaves_no_queue_entry(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	minute := fair.WithWaiterTimeout(time.Minute)
	holder := e.held()
	rcW := srv.Client(t)
	silent := &redistest.Silence{Max: 2 * redistest.Hang, Match: isAcquire}
	t.Cleanup(silent.Off)
	rcW.AddHook(silent)
	lcW := redistest.Lockkit(t, rcW)
	w := e.on(lcW).mutex(minute)
	ctx := redistest.Ctx(t, redistest.Hang)
	gotW := redistest.LockAsync(ctx, w)
	redistest.Eventually(t, 10*time.Second, "w queued", func() bool { return len(e.queue()) == 1 })
	redistest.MustUnlock(t, holder) // w takes the lock from the head of the queue
	if err := redistest.Receive(t, gotW, redistest.Hang, "w's Lock"); err != nil {
		t.Fatal(err)
	}

	silent.On()
	tried := make(chan error, 1)
	// A ctx that never ends: the acquire is sent on the caller's goroutine,
	// and Close does not wait for it.
	go func() { _, err := w.TryLock(context.Background()); tried <- err }()
	redistest.Eventually(t, redistest.Hang, "w's acquire to be held up", func() bool { return silent.Held() > 0 })
	if err := lcW.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, w.Lost(), redistest.Hang, "w's hold reported lost")
	silent.Off()
	redistest.WantErr(t, redistest.Receive(t, tried, redistest.Hang, "w's TryLock"), lockkit.ErrClosed)

	x := e.mutex(minute)
	e.wantTurn(x, redistest.LockAsync(ctx, x), 10*time.Second, "x, after w's TryLock")
	redistest.AssertClean(t, e.c, e.name)
}
