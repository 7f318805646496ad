package adminfault_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// latchEnv returns an env for the latch tests: a latch is not a lock, so
// it has a kind of its own, outside the table of lock kinds.
func latchEnv(t *testing.T) *env {
	t.Helper()
	return newEnv(t, faultkit.Latch(), lease)
}

// awaitAsync starts l.Await(ctx) and returns the channel its error comes
// on.
func awaitAsync(ctx context.Context, l *latch.Latch) <-chan error {
	got := make(chan error, 1)
	go func() { got <- l.Await(ctx) }()
	return got
}

// countDown counts l down and checks the count left.
func countDown(t *testing.T, l *latch.Latch, want int) {
	t.Helper()
	if n, err := l.CountDown(redistest.Ctx(t, callBound)); n != want || err != nil {
		t.Fatalf("CountDown = %d, %v; want %d", n, err, want)
	}
}

// opened checks that every Await of waits returns nil within wakeBound.
func opened(t *testing.T, waits ...<-chan error) {
	t.Helper()
	for _, w := range waits {
		if err := redistest.Receive(t, w, wakeBound, "Await to return"); err != nil {
			t.Errorf("Await = %v, want nil", err)
		}
	}
}

// halfCounted counts e's latch, of 2, down once and starts an Await of it
// on each side, bounded by redistest.Hang: it returns their channels once
// both wait (see subscribed).
func (e *env) halfCounted(t *testing.T) (w1, w2 <-chan error) {
	t.Helper()
	ctx := redistest.Ctx(t, redistest.Hang)
	countDown(t, latch.New(e.A.Nodes[0], e.Name, 2), 1)
	w1, w2 = awaitAsync(ctx, latch.New(e.A.Nodes[0], e.Name, 2)), awaitAsync(ctx, latch.New(e.B.Nodes[0], e.Name, 2))
	e.subscribed(t)
	return w1, w2
}

// TestLatch_Await_is_woken_across_SCRIPT_FLUSH_and_killed_pubsub_connections
// counts a latch down while Awaits of two Clients wait, after SCRIPT FLUSH
// and after the pub/sub connections were killed five times: each opening
// count-down loads its script again and wakes both waiters within a
// second.
func TestLatch_Await_is_woken_across_SCRIPT_FLUSH_and_killed_pubsub_connections(t *testing.T) {
	e := latchEnv(t)
	ctx := redistest.Ctx(t, redistest.Hang)

	flushed := e.Name + "-flushed"
	countDown(t, latch.New(e.A.Nodes[0], flushed, 2), 1)
	w1, w2 := awaitAsync(ctx, latch.New(e.A.Nodes[0], flushed, 2)), awaitAsync(ctx, latch.New(e.B.Nodes[0], flushed, 2))
	e.subscribed(t)
	e.Admin(t, "script", "flush")
	countDown(t, latch.New(e.B.Nodes[0], flushed, 2), 0)
	opened(t, w1, w2)

	killed := e.Name + "-killed"
	w1, w2 = awaitAsync(ctx, latch.New(e.A.Nodes[0], killed, 1)), awaitAsync(ctx, latch.New(e.B.Nodes[0], killed, 1))
	for range pubsubKills {
		e.subscribed(t)
		before := e.B.Reconnects.Load()
		e.Admin(t, "client", "kill", "type", "pubsub")
		redistest.Eventually(t, callBound, "the waiting Client to reconnect", func() bool {
			return e.B.Reconnects.Load() > before
		})
	}
	e.subscribed(t)
	countDown(t, latch.New(e.A.Nodes[0], killed, 1), 0)
	opened(t, w1, w2)
}

// TestLatch_calls_during_CLIENT_PAUSE_return_at_their_deadline pauses the
// server (CLIENT PAUSE 2000 WRITE) while Awaits of two Clients wait:
// CountDown and Await with a ctx of 300 ms return at their deadline with
// an error matching context.DeadlineExceeded; after the pause, counting
// the latch down to zero (the count-down held up may or may not have
// counted) wakes both waiters.
func TestLatch_calls_during_CLIENT_PAUSE_return_at_their_deadline(t *testing.T) {
	e := latchEnv(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	w1, w2 := awaitAsync(ctx, latch.New(e.A.Nodes[0], e.Name, 2)), awaitAsync(ctx, latch.New(e.B.Nodes[0], e.Name, 2))
	e.subscribed(t)
	l := latch.New(e.A.Nodes[0], e.Name, 2)

	e.pause(t, 2*time.Second, "WRITE")
	inTime(t, []pausedCall{
		{name: "CountDown", call: func(ctx context.Context) error { _, err := l.CountDown(ctx); return err }, deadline: true},
		{name: "Await", call: latch.New(e.B.Nodes[0], e.Name, 2).Await, deadline: true},
	})
	e.unpaused(t)
	for {
		n, err := l.CountDown(redistest.Ctx(t, callBound))
		if err != nil {
			t.Fatalf("CountDown after the pause: %v", err)
		}
		if n == 0 {
			break
		}
	}
	opened(t, w1, w2)
}

// TestLatch_FLUSHALL_starts_the_latch_afresh_and_its_waiters_wait_a_full_count
// flushes the server (FLUSHALL) while Awaits of two Clients wait on a
// latch of 2 counted down once: as the package documents for a restart
// that lost the data, the latch starts afresh, the next count-down leaves
// 1 and does not open it, and the one after wakes both waiters.
func TestLatch_FLUSHALL_starts_the_latch_afresh_and_its_waiters_wait_a_full_count(t *testing.T) {
	e := latchEnv(t)
	w1, w2 := e.halfCounted(t)

	e.Admin(t, "flushall")
	countDown(t, latch.New(e.B.Nodes[0], e.Name, 2), 1)
	redistest.NotYet(t, w1, "Await returned after the latch started afresh")
	redistest.NotYet(t, w2, "Await returned after the latch started afresh")
	countDown(t, latch.New(e.B.Nodes[0], e.Name, 2), 0)
	opened(t, w1, w2)
}
