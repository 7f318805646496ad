package spin_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/spin"
)

// TestLock_waiter_waits_out_a_restart_and_takes_the_lost_lock: Redis
// restarts empty while a waiter backs off behind a holder whose lease is a
// minute. An attempt that meets the restart fails on the network, which
// the waiter waits out; it takes the lock, now free, with a token larger than
// the lost hold's, long before that lease would have ended; the holder's
// hold is reported lost.
func TestLock_waiter_waits_out_a_restart_and_takes_the_lost_lock(t *testing.T) {
	srv := redistest.StartServer(t)
	name := redistest.Unique(t)
	holder := spin.New(redistest.Lockkit(t, srv.Client(t)), name, lockkit.WithWatchdogTimeout(time.Minute))
	redistest.MustLock(t, holder)
	before := holder.Token()
	c := srv.Client(t)
	counter := redistest.CountCommands(c)
	waiter := spin.New(redistest.Lockkit(t, c), name, spin.WithConstantBackoff(20*time.Millisecond))
	got := redistest.LockAsync(redistest.Ctx(t, hang), waiter)
	redistest.Eventually(t, hang, "the waiter to back off", func() bool { return counter.Scripts() >= 2 })

	srv.Restart(t)
	if err := redistest.Receive(t, got, 10*time.Second, "the waiter's Lock across the restart"); err != nil {
		t.Fatalf("Lock across the restart: %v", err)
	}
	if waiter.Token() <= before {
		t.Fatalf("token %d after the restart, not above the lost hold's %d", waiter.Token(), before)
	}
	redistest.MustUnlock(t, waiter)
	redistest.WantErr(t, holder.Unlock(redistest.Ctx(t, 5*time.Second)), lockkit.ErrLost)
	redistest.AssertClean(t, srv.Client(t), name)
}
