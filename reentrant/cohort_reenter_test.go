package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_holder_reenters_ahead_of_the_Locks_waiting_in_memory:
// while other Mutexes of the process wait in memory, the holder's Lock
// re-enters at once, sending nothing, rather than queueing behind them;
// the Unlock that undoes the re-entry keeps the hold (the waiters still
// wait), and only the Unlock that ends the hold hands it over, to the
// waiter that came first. Two Locks of that waiter, made while it waited,
// both hold then: the second re-enters the hold handed over.
func TestLocalHandoff_holder_reenters_ahead_of_the_Locks_waiting_in_memory(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	holder, first, second := reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff)
	redistest.MustLock(t, holder)
	gotFirst := lockLocal(ctx, t, first, 1)
	gotSecond := lockLocal(ctx, t, second, 2)
	gotFirstAgain := lockLocal(ctx, t, first, 3)

	counter := redistest.CountCommands(c)
	redistest.MustLock(t, holder) // a re-entry, not a wait behind the three
	redistest.MustUnlock(t, holder)
	if n := counter.Total(); n != 0 {
		t.Errorf("a re-entry and its Unlock with Locks waiting in memory sent %d commands, want 0", n)
	}
	if n := reentrant.LocalWaiters(holder); n != 3 {
		t.Fatalf("%d Locks wait in memory after the re-entry's Unlock, want all 3", n)
	}
	redistest.WantHoldCount(t, holder, 1)
	redistest.MustUnlock(t, holder)
	for _, got := range []<-chan error{gotFirst, gotFirstAgain} {
		if err := redistest.Receive(t, got, 10*time.Second, "a Lock of the first waiter"); err != nil {
			t.Fatal(err)
		}
	}
	redistest.WantHoldCount(t, first, 2)
	if n := reentrant.LocalWaiters(holder); n != 1 {
		t.Fatalf("%d Locks wait in memory once the first waiter holds, want the second waiter's", n)
	}
	redistest.WantHoldCount(t, holder, 0)
	redistest.MustUnlock(t, first) // it still holds once
	waitsForUnlock(t, first, gotSecond, 10*time.Second, "the second waiter's Lock")
	redistest.MustUnlock(t, second)
	redistest.AssertClean(t, c, name)
}
