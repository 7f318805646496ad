package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_Close_ends_the_Lock_waiting_in_Redis_and_those_waiting_in_memory:
// another process holds the lock; of three Mutexes of a Client in cohort
// mode, one waits for it in Redis and two in memory behind it. Close ends
// all three Locks with ErrClosed, none of them holding, and leaves no
// cohort in the Client; the other process keeps its hold, and its Unlock
// leaves nothing behind in Redis.
func TestLocalHandoff_Close_ends_the_Lock_waiting_in_Redis_and_those_waiting_in_memory(t *testing.T) {
	c, lcA, lcB, name := twoProcesses(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	b := reentrant.New(lcB, name, handoff)
	redistest.MustLock(t, b)
	a := []*reentrant.Mutex{reentrant.New(lcA, name, handoff), reentrant.New(lcA, name, handoff), reentrant.New(lcA, name, handoff)}
	got := []<-chan error{redistest.LockAsync(ctx, a[0])}
	waitAsleep(t, lcA, name, 1)
	for i := 1; i < len(a); i++ {
		got = append(got, redistest.LockAsync(ctx, a[i]))
		waitLocal(t, a[0], i)
	}
	if err := lcA.Close(); err != nil {
		t.Fatal(err)
	}
	for i, ch := range got {
		redistest.WantErr(t, redistest.Receive(t, ch, 10*time.Second, "a Lock of the closed Client"), lockkit.ErrClosed)
		if a[i].Token() != 0 {
			t.Errorf("Mutex %d of the closed Client holds token %d", i, a[i].Token())
		}
	}
	redistest.Eventually(t, 10*time.Second, "the closed Client to drop the cohort", func() bool {
		return cohorts(lcA) == 0
	})
	redistest.WantHoldCount(t, b, 1)
	redistest.MustUnlock(t, b)
	redistest.AssertClean(t, c, name)
}

// TestLocalHandoff_Close_hands_nothing_over_to_the_Locks_waiting_in_memory:
// a Mutex in cohort mode holds the lock and two others of its Client
// wait in memory. Close ends both Locks with ErrClosed, and the holder's
// Unlock afterwards hands nothing over: it reports the hold lost and
// frees it in Redis, so that another process takes the lock at once, and
// the Client keeps no cohort.
func TestLocalHandoff_Close_hands_nothing_over_to_the_Locks_waiting_in_memory(t *testing.T) {
	c, lcA, lcB, name := twoProcesses(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	holder, w1 := heldInCohort(t, lcA, name)
	w2 := reentrant.New(lcA, name, handoff)
	got1 := lockLocal(ctx, t, w1, 1)
	got2 := lockLocal(ctx, t, w2, 2)
	if err := lcA.Close(); err != nil {
		t.Fatal(err)
	}
	for _, got := range []<-chan error{got1, got2} {
		redistest.WantErr(t, redistest.Receive(t, got, 10*time.Second, "a Lock waiting in memory at Close"), lockkit.ErrClosed)
	}
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost, lockkit.ErrClosed)
	for _, m := range []*reentrant.Mutex{holder, w1, w2} {
		if m.Token() != 0 {
			t.Errorf("a Mutex of the closed Client holds token %d after the holder's Unlock", m.Token())
		}
	}
	redistest.Eventually(t, 10*time.Second, "the closed Client to drop the cohort", func() bool {
		return cohorts(lcA) == 0
	})
	b := reentrant.New(lcB, name, handoff)
	if ok, err := b.TryLock(ctx); !ok || err != nil {
		t.Fatalf("another process's TryLock after the closed Client's holder unlocked = %v, %v; want true", ok, err)
	}
	redistest.MustUnlock(t, b)
	redistest.AssertClean(t, c, name)
}
