package spin_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/spin"
)

// TestClose_with_a_waiters_attempt_on_its_way_gives_back_the_lock_it_took:
// a waiter's attempt is held up until the holder on another Client has
// unlocked and the waiter's Client has closed, and then takes the free
// lock. The waiter's Lock returns ErrClosed and has given the hold
// back: another owner takes the lock at once, and nothing of it is left.
func TestClose_with_a_waiters_attempt_on_its_way_gives_back_the_lock_it_took(t *testing.T) {
	srv, name, holder, c, counter := heldElsewhere(t)
	silent := &redistest.Silence{Max: 2 * hang, Match: redistest.IsScript}
	t.Cleanup(silent.Off)
	c.AddHook(silent)
	lc := redistest.Lockkit(t, c)
	waiter := spin.New(lc, name, spin.WithConstantBackoff(5*time.Millisecond))
	got := redistest.LockAsync(redistest.Ctx(t, hang), waiter)
	redistest.Eventually(t, hang, "the waiter's first attempt", func() bool { return counter.Scripts() >= 1 })
	silent.On()
	redistest.Eventually(t, hang, "an attempt of the waiter to be held up", func() bool { return silent.Held() > 0 })
	redistest.MustUnlock(t, holder) // before the attempt held up reaches the server
	closed := make(chan error, 1)
	go func() { closed <- lc.Close() }()
	<-lc.Done()
	silent.Off() // the attempt runs now, and takes the free lock
	redistest.WantErr(t, redistest.Receive(t, got, hang, "the waiter's Lock"), lockkit.ErrClosed)
	if err := redistest.Receive(t, closed, hang, "Close"); err != nil {
		t.Fatal(err)
	}
	if waiter.Token() != 0 {
		t.Errorf("Token after a Lock that failed = %d, want 0", waiter.Token())
	}
	other := spin.New(redistest.Lockkit(t, srv.Client(t)), name)
	if ok, err := other.TryLock(redistest.Ctx(t, 5*time.Second)); !ok || err != nil {
		t.Fatalf("TryLock by another owner after the Lock that failed = %v, %v; want the lock", ok, err)
	}
	redistest.MustUnlock(t, other)
	redistest.AssertClean(t, srv.Client(t), name)
}

// TestClose_first_Unlock_of_a_reentered_hold_frees_the_lock_for_a_waiter:
// a holder has entered the lock three times (a lease of a minute) when its
// Client closes, with a waiter backing off on another Client. The first
// Unlock, which returns ErrClosed, undoes all three acquires: the waiter
// takes the lock at once, not when the lease ends, and the holder's other
// Unlocks return ErrClosed and leave the waiter's hold be.
func TestClose_first_Unlock_of_a_reentered_hold_frees_the_lock_for_a_waiter(t *testing.T) {
	srv := redistest.StartServer(t)
	name := redistest.Unique(t)
	lc := redistest.Lockkit(t, srv.Client(t))
	holder := spin.New(lc, name, lockkit.WithWatchdogTimeout(time.Minute))
	for range 3 {
		redistest.MustLock(t, holder)
	}
	c := srv.Client(t)
	counter := redistest.CountCommands(c)
	waiter := spin.New(redistest.Lockkit(t, c), name, spin.WithConstantBackoff(20*time.Millisecond))
	got := redistest.LockAsync(redistest.Ctx(t, hang), waiter)
	redistest.Eventually(t, hang, "the waiter to back off", func() bool { return counter.Scripts() >= 2 })

	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := redistest.Ctx(t, 10*time.Second)
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrClosed)
	if err := redistest.Receive(t, got, 10*time.Second, "the waiter's Lock after the first Unlock"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrClosed)
	}
	redistest.WantHoldCount(t, waiter, 1)
	redistest.MustUnlock(t, waiter)
	redistest.AssertClean(t, srv.Client(t), name)
}
