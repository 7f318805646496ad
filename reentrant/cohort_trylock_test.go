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

// TestLocalHandoff_TryLock_of_another_Mutex_right_after_a_loss_takes_the_free_lock:
// Mutex a holds, its key vanishes, and its lost signal closes; at once,
// another Mutex b of the process tries: the lock is free in Redis and no
// Mutex of the process holds it (a's hold is lost), so b's TryLock takes
// it, as it does without cohort mode. The process takes the local lock
// back from a lost holder a moment after the loss; a TryLock that comes
// before then must not find a still holding. 30 rounds.
func TestLocalHandoff_TryLock_of_another_Mutex_right_after_a_loss_takes_the_free_lock(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	for round := range 30 {
		a, b := reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff)
		redistest.MustLock(t, a)
		if err := c.Del(ctx, "lockkit:{"+name+"}").Err(); err != nil {
			t.Fatal(err)
		}
		lc.Watchdog().Check()
		redistest.Receive(t, a.Lost(), redistest.Hang, "a's lost signal")
		if ok, err := b.TryLock(ctx); !ok || err != nil {
			t.Fatalf("round %d: b's TryLock right after a's loss, the lock free = %v, %v; want true", round, ok, err)
		}
		redistest.MustUnlock(t, b)
		redistest.WantErr(t, a.Unlock(ctx), lockkit.ErrLost)
	}
	redistest.AssertCleanWithin(t, c, name, 5*time.Second)
}
