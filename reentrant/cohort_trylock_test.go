package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_TryLock_after_a_loss_takes_the_free_lock: once a
// Mutex's hold is lost (its key vanished and the watchdog said so), the
// Mutex holds nothing and no other Mutex of the process holds or waits,
// so its TryLock takes the free lock, with a fresh token, as it does
// without cohort mode; it is not kept out by its own lost hold.
func TestLocalHandoff_TryLock_after_a_loss_takes_the_free_lock(t *testing.T) {
	c, lc, name := oneProcess(t)
	m := reentrant.New(lc, name, handoff, lockkit.WithWatchdogTimeout(300*time.Millisecond))
	ctx := redistest.Ctx(t, redistest.Hang)
	for round := range 10 {
		redistest.MustLock(t, m)
		lost := m.Token()
		if err := c.Del(ctx, "lockkit:{"+name+"}").Err(); err != nil {
			t.Fatal(err)
		}
		redistest.Receive(t, m.Lost(), redistest.Hang, "the lost signal")
		if ok, err := m.TryLock(ctx); !ok || err != nil {
			t.Fatalf("round %d: TryLock after the loss, the lock free = %v, %v; want true", round, ok, err)
		}
		if m.Token() <= lost {
			t.Fatalf("round %d: token after the loss %d, want more than the lost hold's %d", round, m.Token(), lost)
		}
		redistest.WantHoldCount(t, m, 1)
		redistest.MustUnlock(t, m)
	}
	redistest.AssertClean(t, c, name)
}
