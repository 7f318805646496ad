package fair_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLock_waiters_get_the_lock_after_a_restart_that_lost_the_queue: Redis
// restarts empty while a holder holds the lock and two waiters queue for
// it. The hold is reported lost; the waiters wait the restart out, queue
// again at their next attempts (the queue was lost with the data), and
// each takes the lock in turn without an error, with a token larger than
// the lost hold's.
func TestLock_waiters_get_the_lock_after_a_restart_that_lost_the_queue(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	holder := e.held(lockkit.WithWatchdogTimeout(time.Second)) // renewed every 1/3 s
	before := holder.Token()
	lc := redistest.Lockkit(t, srv.Client(t))
	// A heartbeat every 100 ms brings the waiters back soon after the
	// restart.
	opts := []lockkit.Option{fair.WithWaiterTimeout(300 * time.Millisecond)}
	a := e.on(lc).mutex(append(opts, lockkit.WithOwner("a"))...)
	b := e.on(lc).mutex(append(opts, lockkit.WithOwner("b"))...)
	gotA := redistest.LockAsync(redistest.Ctx(t, time.Minute), a)
	e.waitQueue("a")
	gotB := redistest.LockAsync(redistest.Ctx(t, time.Minute), b)
	e.waitQueue("a", "b")

	srv.Restart(t)
	redistest.Receive(t, holder.Lost(), 20*time.Second, "the holder to learn its hold is lost")
	redistest.WantErr(t, holder.Unlock(redistest.Ctx(t, 5*time.Second)), lockkit.ErrLost)
	for range 2 {
		i, err := eitherLocked(t, gotA, gotB, 20*time.Second, "no waiter took the lock after the restart")
		if err != nil {
			t.Fatalf("Lock across the restart: %v", err)
		}
		m := [2]*fair.Mutex{a, b}[i]
		if m.Token() <= before {
			t.Fatalf("token %d after the restart, not above the lost hold's %d", m.Token(), before)
		}
		redistest.MustUnlock(t, m)
	}
	e.wantQueue()
}
