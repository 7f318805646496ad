package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_a_Lock_queued_in_memory_takes_over_the_wait_in_Redis:
// in cohort mode only the first Lock of the process waits in Redis, the
// others queue in memory behind it. When that first Lock's ctx ends, it
// returns holding nothing, and the next in the queue waits in Redis in its
// stead: the release by the other process wakes it (well before the
// holder's 30 s lease could run out) and it gets the lock.
func TestLocalHandoff_a_Lock_queued_in_memory_takes_over_the_wait_in_Redis(t *testing.T) {
	c, lcA, lcB, name := twoProcesses(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	holder := reentrant.New(lcA, name, handoff)
	redistest.MustLock(t, holder)
	first, next := reentrant.New(lcB, name, handoff), reentrant.New(lcB, name, handoff)
	short, cancel := context.WithCancel(ctx)
	defer cancel()
	gotFirst := redistest.LockAsync(short, first)
	waitAsleep(t, lcB, name, 1)
	gotNext := lockLocal(ctx, t, next, 1)
	cancel()
	redistest.WantErr(t, redistest.Receive(t, gotFirst, 10*time.Second, "the first Lock, its ctx cancelled"),
		lockkit.ErrNotObtained, context.Canceled)
	if first.Token() != 0 {
		t.Errorf("the cancelled Lock's Mutex holds token %d", first.Token())
	}
	waitAsleep(t, lcB, name, 1) // the next Lock waits in Redis now
	redistest.MustUnlock(t, holder)
	if err := redistest.Receive(t, gotNext, 10*time.Second, "the next Lock, woken by the release"); err != nil {
		t.Fatal(err)
	}
	redistest.WantHoldCount(t, next, 1)
	redistest.MustUnlock(t, next)
	redistest.AssertClean(t, c, name)
}
