package reentrant_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_a_Lock_cancelled_as_the_hold_is_handed_to_it_holds_or_leaves_nothing:
// a Lock waits in memory, and its ctx ends at the instant the holder's
// Unlock hands the hold over. Whichever wins, the outcome is whole: Lock
// returns nil and its Mutex holds the hold handed over (same token, count
// 1, its Unlock frees the lock), or Lock fails with ErrNotObtained and
// the hold goes to the next waiter or back to Redis: it is never left to
// nobody, which would keep every other Mutex and process out. Many rounds
// meet both outcomes.
func TestLocalHandoff_a_Lock_cancelled_as_the_hold_is_handed_to_it_holds_or_leaves_nothing(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 2*time.Minute)
	other := reentrant.New(redistest.Lockkit(t, c), name) // another process
	var won, lost int
	for round := 0; round < 200 && (won == 0 || lost == 0 || round < 50); round++ {
		holder, waiter, next := reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff)
		redistest.MustLock(t, holder)
		token := holder.Token()
		short, cancel := context.WithCancel(ctx)
		got := lockLocal(short, t, waiter, 1)
		withNext := round%2 == 1
		var gotNext <-chan error
		if withNext {
			gotNext = lockLocal(ctx, t, next, 2)
		}
		unlocked := make(chan error, 1)
		go func() { unlocked <- holder.Unlock(ctx) }()
		cancel()
		if err := redistest.Receive(t, unlocked, 10*time.Second, "the holder's Unlock"); err != nil {
			t.Fatal(err)
		}
		err := redistest.Receive(t, got, 10*time.Second, "the cancelled Lock")
		switch {
		case err == nil:
			won++
			if waiter.Token() != token {
				t.Fatalf("round %d: the Lock that won holds token %d, want the hold's %d", round, waiter.Token(), token)
			}
			redistest.WantHoldCount(t, waiter, 1)
			redistest.MustUnlock(t, waiter)
		case errors.Is(err, lockkit.ErrNotObtained) && errors.Is(err, context.Canceled):
			lost++
			if waiter.Token() != 0 {
				t.Fatalf("round %d: the cancelled Lock failed but its Mutex holds token %d", round, waiter.Token())
			}
			redistest.WantErr(t, waiter.Unlock(ctx), lockkit.ErrNotHeld)
		default:
			t.Fatalf("round %d: the cancelled Lock = %v; want nil or ErrNotObtained", round, err)
		}
		if withNext {
			if err := redistest.Receive(t, gotNext, 10*time.Second, "the next waiter's Lock"); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			redistest.MustUnlock(t, next)
		}
		// Nothing is left held: another process gets the lock at once.
		if ok, err := other.TryLock(ctx); !ok || err != nil {
			t.Fatalf("round %d: another process's TryLock after every Mutex unlocked = %v, %v; want true", round, ok, err)
		}
		redistest.MustUnlock(t, other)
	}
	t.Logf("the cancelled Lock won the hold %d times, failed %d times", won, lost)
	redistest.AssertClean(t, c, name)
}
