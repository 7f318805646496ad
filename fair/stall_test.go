package fair_test

import (
	"slices"
	"testing"
	"time"

	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLock_server_stall_shorter_than_the_waiter_timeout_keeps_the_order:
// Redis stops answering for 1 s while four waiters queue behind a holder;
// their entries' deadlines, 2 s or more ahead when it began, do not pass
// during the stall, so the queue comes out of it as it was and the
// waiters take the lock in the order they joined.
func TestLock_server_stall_shorter_than_the_waiter_timeout_keeps_the_order(t *testing.T) {
	want := []string{"a", "b", "c", "d"}
	e, holder, tr := stalledQueue(t, want, 3*time.Second, time.Second) // a heartbeat every second
	// Served once the stall is over.
	e.wantQueue(want...)
	redistest.MustUnlock(t, holder)
	tr.want(t, time.Minute, want...)
}

// TestLock_server_stall_longer_than_the_waiter_timeout_requeues_every_waiter:
// Redis stops answering for 1.5 s, past the deadline of every entry of the
// queue (a waiter timeout of 600 ms, on the server's clock). The waiters
// keep attempting, so none is lost: the queue forms again, with every
// waiter, in the order their attempts reach the server after the stall,
// and each takes the lock in that order.
func TestLock_server_stall_longer_than_the_waiter_timeout_requeues_every_waiter(t *testing.T) {
	joined := []string{"a", "b", "c", "d"}
	e, holder, tr := stalledQueue(t, joined, 600*time.Millisecond, 1500*time.Millisecond)
	var queue []string
	redistest.Eventually(t, 10*time.Second, "every waiter queued again", func() bool {
		queue = e.queue()
		sorted := slices.Sorted(slices.Values(queue))
		return slices.Equal(sorted, joined)
	})
	redistest.MustUnlock(t, holder)
	tr.want(t, time.Minute, queue...)
}

// stalledQueue starts a redis-server, a holder of a lock on it and
// waiters with the owner ids ids, queued behind it in that order with
// waiter timeout wt, then stalls the server for d. The waiters record
// their turns in tr.
func stalledQueue(t *testing.T, ids []string, wt, d time.Duration) (e *lockEnv, holder *fair.Mutex, tr *turns) {
	t.Helper()
	srv := redistest.StartServer(t)
	e = newLockEnv(t, srv.Client(t))
	holder = e.held()
	tr = new(turns)
	tr.join(e, nil, ids, fair.WithWaiterTimeout(wt))
	srv.Stall(t, d)
	return e, holder, tr
}
