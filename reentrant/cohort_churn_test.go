package reentrant_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_Mutexes_joining_and_leaving_at_once_never_hold_together:
// Mutexes of two Clients, old ones (whose cohort is cached, and dropped
// whenever its users fall to 0) and new ones, join and leave their
// cohort at once: they Lock, re-enter, TryLock, give up a Lock whose ctx
// ends in a moment, and Unlock, with hand-overs bounded so that the hold
// also goes back to Redis often. No two of them are ever inside at once,
// every call returns as documented, and once all are done neither Client
// keeps a cohort and nothing is left in Redis.
func TestLocalHandoff_Mutexes_joining_and_leaving_at_once_never_hold_together(t *testing.T) {
	c, lcA, lcB, name := twoProcesses(t)
	ctx := redistest.Ctx(t, 2*time.Minute)
	opt := reentrant.WithLocalHandoff(4, 5*time.Millisecond)
	var inside, holds atomic.Int64
	errs := make(chan error, 64)
	var wg sync.WaitGroup
	worker := func(lc *lockkit.Client, id int) {
		old := reentrant.New(lc, name, opt)
		for round := range 60 {
			m := old
			if round%3 == 0 {
				m = reentrant.New(lc, name, opt)
			}
			held, err := churnHold(ctx, m, round)
			if err != nil {
				errs <- fmt.Errorf("worker %d round %d: %w", id, round, err)
				return
			}
			if !held {
				continue
			}
			if inside.Add(1) != 1 {
				errs <- fmt.Errorf("worker %d round %d: %w", id, round, redistest.ErrOverlap)
			}
			holds.Add(1)
			runtime.Gosched()
			inside.Add(-1)
			for range 1 + round%2 { // the re-entry's Unlock, then the hold's
				if err := m.Unlock(ctx); err != nil {
					errs <- fmt.Errorf("worker %d round %d: Unlock: %w", id, round, err)
					return
				}
			}
		}
	}
	for i := range 8 {
		wg.Go(func() { worker(lcA, i) })
	}
	for i := range 2 {
		wg.Go(func() { worker(lcB, 8+i) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d holds", holds.Load())
	if holds.Load() == 0 {
		t.Fatal("no hold taken")
	}
	redistest.Eventually(t, 10*time.Second, "both Clients to drop their cohorts", func() bool {
		return cohorts(lcA) == 0 && cohorts(lcB) == 0
	})
	redistest.AssertClean(t, c, name)
}

// churnHold takes m's lock one of four ways, by round: a Lock, a Lock and
// a re-entry (the caller's odd rounds unlock twice), a TryLock, or a Lock
// whose ctx ends within a millisecond. It reports whether m holds, and an
// error for any outcome the documentation does not allow.
func churnHold(ctx context.Context, m *reentrant.Mutex, round int) (bool, error) {
	switch round % 4 {
	case 2:
		ok, err := m.TryLock(ctx) // an even round: no re-entry
		if err != nil {
			return false, fmt.Errorf("TryLock: %w", err)
		}
		return ok, nil
	case 3:
		short, cancel := context.WithTimeout(ctx, time.Millisecond)
		defer cancel()
		err := m.Lock(short)
		switch {
		case err == nil:
		case errors.Is(err, lockkit.ErrNotObtained) && errors.Is(err, context.DeadlineExceeded):
			if m.Token() != 0 {
				return false, fmt.Errorf("a Lock that failed left token %d", m.Token())
			}
			return false, nil
		default:
			return false, fmt.Errorf("Lock with a short ctx: %w", err)
		}
	default:
		if err := m.Lock(ctx); err != nil {
			return false, fmt.Errorf("Lock: %w", err)
		}
	}
	if round%2 == 1 {
		if err := m.Lock(ctx); err != nil {
			return false, fmt.Errorf("re-entry: %w", err)
		}
	}
	return true, nil
}
