package spin_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/spin"
)

// TestLock_sleeping_waiter_returns_ErrClosed_when_its_Client_closes: a
// waiter between two attempts, with an hour's backoff and a holder whose
// lease the watchdog renews, returns ErrClosed as soon as its Client is
// closed, not when its sleep would have ended; the holder on another
// Client keeps the lock.
func TestLock_sleeping_waiter_returns_ErrClosed_when_its_Client_closes(t *testing.T) {
	srv, name, holder, c, counter := heldElsewhere(t)
	lc := redistest.Lockkit(t, c)
	waiter := spin.New(lc, name, spin.WithConstantBackoff(time.Hour))
	got := redistest.LockAsync(redistest.Ctx(t, hang), waiter)
	redistest.Eventually(t, hang, "the waiter's first attempt", func() bool { return counter.Scripts() == 1 })
	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, redistest.Receive(t, got, 5*time.Second, "the sleeping waiter's Lock"), lockkit.ErrClosed)
	if n := counter.Scripts(); n != 1 {
		t.Fatalf("the waiter sent %d attempts, want 1", n)
	}
	redistest.WantHoldCount(t, holder, 1)
	redistest.MustUnlock(t, holder)
	redistest.AssertClean(t, srv.Client(t), name)
}
