package reentrant_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_a_hold_lost_as_it_is_handed_over_reaches_the_new_holder:
// the holder's Unlock hands the process's hold to a Mutex waiting in
// memory at the instant another process force-unlocks it and locks, just
// after, or once the holder was told. The waiter's Lock returns either the
// hold handed over, which is then lost (Lost closes, Unlock reports
// ErrLost), or a fresh hold taken from Redis, with a larger token, which
// never overlaps the other process's hold.
func TestLocalHandoff_a_hold_lost_as_it_is_handed_over_reaches_the_new_holder(t *testing.T) {
	c, lcA, lcB, name := twoProcesses(t)
	ctx := redistest.Ctx(t, 2*time.Minute)
	forcer := reentrant.New(lcB, name)
	var inside atomic.Int32
	var handedLost, fresh atomic.Int32
	for round := range 30 {
		holder, waiter := heldInCohort(t, lcA, name)
		token := holder.Token()
		waiterDone := make(chan error, 1)
		go func() {
			if err := waiter.Lock(ctx); err != nil {
				waiterDone <- err
				return
			}
			switch tok := waiter.Token(); {
			case tok > token:
				fresh.Add(1)
				waiterDone <- holdAlone(ctx, waiter, &inside)
			case tok == token || tok == 0: // 0: lost already
				handedLost.Add(1)
				select {
				case <-waiter.Lost():
				case <-time.After(10 * time.Second):
					waiterDone <- errors.New("the hold handed over and force-unlocked: its lost signal never closed")
					return
				}
				if err := waiter.Unlock(ctx); !errors.Is(err, lockkit.ErrLost) {
					waiterDone <- fmt.Errorf("Unlock of the hold handed over and lost = %v, want ErrLost", err)
					return
				}
				waiterDone <- nil
			default:
				waiterDone <- fmt.Errorf("the waiter's token %d after the holder's %d", tok, token)
			}
		}()
		waitLocal(t, holder, 1)
		other := reentrant.New(lcB, name)
		otherDone, forced := make(chan error, 1), make(chan struct{})
		go func() {
			_, err := forcer.ForceUnlock(ctx)
			close(forced)
			if err == nil {
				lcA.Watchdog().Check()
				err = other.Lock(ctx)
			}
			if err == nil {
				err = holdAlone(ctx, other, &inside)
			}
			otherDone <- err
		}()
		switch round % 3 { // the Unlock races the force, follows it, or follows its news
		case 1:
			<-forced
		case 2:
			redistest.Receive(t, holder.Lost(), 10*time.Second, "the holder's lost signal")
		}
		if err := holder.Unlock(ctx); err != nil && !errors.Is(err, lockkit.ErrLost) {
			t.Fatalf("round %d: the holder's Unlock = %v; want nil (a hand-over) or ErrLost", round, err)
		}
		if err := redistest.Receive(t, waiterDone, 20*time.Second, "the waiter's Lock and Unlock"); err != nil {
			t.Fatalf("round %d: waiter: %v", round, err)
		}
		if err := redistest.Receive(t, otherDone, 20*time.Second, "the other process's Lock and Unlock"); err != nil {
			t.Fatalf("round %d: other process: %v", round, err)
		}
	}
	t.Logf("the waiter got the hold handed over and lost %d times, a fresh hold %d times", handedLost.Load(), fresh.Load())
	redistest.AssertClean(t, c, name)
}

// holdAlone checks that m, which holds a live hold, is alone inside
// (counted by inside) for a moment, then unlocks it.
func holdAlone(ctx context.Context, m *reentrant.Mutex, inside *atomic.Int32) error {
	overlap := inside.Add(1) != 1
	runtime.Gosched()
	inside.Add(-1)
	if err := m.Unlock(ctx); err != nil {
		return err
	}
	if overlap {
		return redistest.ErrOverlap
	}
	return nil
}
