package multilock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLock_re_entry_that_fails_part_way_keeps_the_earlier_hold_counts: m
// holds a and b once; b's hold is then lost to another owner. A Lock of m
// again re-enters a and cannot take b: every round, with a bounded wait
// per member, re-enters a and gives that re-entry back, and when ctx ends
// m holds a exactly once, as before (nothing it did not hold before, and
// nothing less); TryLock does the same in one round. m's Unlock then frees
// a and reports b lost or not held.
func TestLock_re_entry_that_fails_part_way_keeps_the_earlier_hold_counts(t *testing.T) {
	s := redistest.StartServer(t)
	rc := s.Client(t)
	c := redistest.Lockkit(t, rc)
	a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
	memberA := reentrant.New(c, a)
	memberB := reentrant.New(c, b, lockkit.WithWatchdogTimeout(300*time.Millisecond))
	m := multilock.New([]lockkit.Locker{memberB, memberA}, multilock.WithLockWait(20*time.Millisecond))
	redistest.MustLock(t, m)
	token := memberA.Token()

	if err := rc.Del(redistest.Ctx(t, redistest.Hang), lockKey(b)).Err(); err != nil {
		t.Fatal(err)
	}
	other := reentrant.New(c, b)
	redistest.MustLock(t, other)
	redistest.Receive(t, memberB.Lost(), redistest.Hang, "b's hold to be found lost")

	err := m.Lock(redistest.Ctx(t, 300*time.Millisecond))
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	redistest.WantHoldCount(t, memberA, 1)
	if memberA.Token() != token {
		t.Fatalf("a's token is %d after the failed Lock, want %d", memberA.Token(), token)
	}
	if ok, err := m.TryLock(redistest.Ctx(t, redistest.Hang)); ok || err != nil {
		t.Fatalf("TryLock with b held by another owner = %v, %v; want false, nil", ok, err)
	}
	redistest.WantHoldCount(t, memberA, 1)
	redistest.WantHoldCount(t, m, 0)

	err = m.Unlock(redistest.Ctx(t, redistest.Hang))
	if !errors.Is(err, lockkit.ErrLost) && !errors.Is(err, lockkit.ErrNotHeld) {
		t.Fatalf("Unlock of m, whose b was lost = %v; want ErrLost or ErrNotHeld", err)
	}
	redistest.AssertClean(t, rc, a)
	redistest.WantHoldCount(t, other, 1)
	redistest.MustUnlock(t, other)
	// The release keeps b for the process m waited in, for 100 ms.
	redistest.Eventually(t, redistest.Hang, "b to be no longer kept for m's process", func() bool {
		n, err := rc.Exists(context.Background(), lockKey(b)+":turn").Result()
		return err == nil && n == 0
	})
	redistest.AssertClean(t, rc, b)
}
