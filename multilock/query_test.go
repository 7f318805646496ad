package multilock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

// TestQueries_member_held_by_another_owner checks the queries of a Mutex
// whose one member is held alone, by another owner: the Mutex is locked
// (another owner's Lock would wait), its owner holds it 0 times, and its
// TTL is that member's lease.
func TestQueries_member_held_by_another_owner(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, redistest.Hang)
		c := redistest.Lockkit(t, rc)
		a, b := redistest.Unique(t), redistest.Unique(t)
		m := multilock.New([]lockkit.Locker{reentrant.New(c, a), spin.New(c, b)})
		other := spin.New(c, b, lockkit.WithLease(time.Minute))
		redistest.MustLock(t, other)

		if locked, err := m.IsLocked(ctx); !locked || err != nil {
			t.Fatalf("IsLocked with one member held = %v, %v; want true", locked, err)
		}
		redistest.WantHoldCount(t, m, 0)
		ttl, err := m.TTL(ctx)
		if err != nil || ttl <= 0 || ttl > time.Minute {
			t.Fatalf("TTL with one member held for a minute = %v, %v; want in (0, 1m]", ttl, err)
		}
		if ok, err := m.TryLock(ctx); ok || err != nil {
			t.Fatalf("TryLock while IsLocked = %v, %v; want false", ok, err)
		}

		// Held as a whole, twice: the shortest lease is the watched one.
		redistest.MustUnlock(t, other)
		redistest.MustLock(t, m)
		redistest.MustLock(t, m)
		redistest.WantHoldCount(t, m, 2)
		ttl, err = m.TTL(ctx)
		if err != nil || ttl <= 0 || ttl > lockkit.DefaultWatchdogTimeout {
			t.Fatalf("TTL held as a whole = %v, %v; want in (0, %v]", ttl, err, lockkit.DefaultWatchdogTimeout)
		}
		// A member released by hand leaves the owner holding the rest once
		// more than the whole.
		redistest.MustUnlock(t, m.Locks()[0])
		redistest.WantHoldCount(t, m, 1)
		redistest.MustUnlock(t, m.Locks()[1])
		redistest.MustUnlock(t, m)
		if locked, err := m.IsLocked(ctx); locked || err != nil {
			t.Fatalf("IsLocked after the last Unlock = %v, %v; want false", locked, err)
		}
		if ttl, err := m.TTL(ctx); ttl != 0 || err != nil {
			t.Fatalf("TTL after the last Unlock = %v, %v; want 0", ttl, err)
		}
	})
}

// TestForceUnlock_frees_members_held_by_different_owners checks that
// ForceUnlock frees every member whoever holds it, wakes a waiter, and that
// the owners then learn of their loss.
func TestForceUnlock_frees_members_held_by_different_owners(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, redistest.Hang)
		c := redistest.Lockkit(t, rc)
		a, b := redistest.Unique(t), redistest.Unique(t)
		holdA, holdB := reentrant.New(c, a), spin.New(c, b)
		redistest.MustLock(t, holdA)
		redistest.MustLock(t, holdA)
		redistest.MustLock(t, holdB)
		waiter := reentrant.New(c, a)
		got := redistest.LockAsync(ctx, waiter)

		m := multilock.New([]lockkit.Locker{reentrant.New(c, a), spin.New(c, b)})
		if ok, err := m.ForceUnlock(ctx); !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
		}
		if err := redistest.Receive(t, got, redistest.Hang, "the waiter's Lock"); err != nil {
			t.Fatalf("waiter after ForceUnlock: %v", err)
		}
		redistest.WantErr(t, holdA.Unlock(ctx), lockkit.ErrLost)
		redistest.WantErr(t, holdB.Unlock(ctx), lockkit.ErrLost)
		redistest.MustUnlock(t, waiter)
		if ok, err := m.ForceUnlock(ctx); ok || err != nil {
			t.Fatalf("ForceUnlock of free members = %v, %v; want false", ok, err)
		}
		redistest.AssertClean(t, rc, a)
		redistest.AssertClean(t, rc, b)
	})
}

// TestForceUnlock_frees_the_rest_when_a_member_fails checks that one
// member's error does not keep the others from being freed: ForceUnlock
// reports the error and that a hold was removed.
func TestForceUnlock_frees_the_rest_when_a_member_fails(t *testing.T) {
	_, rc := redistest.Mini(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	c := redistest.Lockkit(t, rc)
	closed := lockkit.New(rc)
	a, b := redistest.Unique(t), redistest.Unique(t)
	m := multilock.New([]lockkit.Locker{reentrant.New(closed, a), reentrant.New(c, b)})
	redistest.MustLock(t, reentrant.New(c, b))
	_ = closed.Close()

	ok, err := m.ForceUnlock(ctx)
	if !ok {
		t.Fatalf("ForceUnlock = %v, %v; want true: b was held", ok, err)
	}
	redistest.WantErr(t, err, lockkit.ErrClosed)
	if locked, err := reentrant.New(c, b).IsLocked(ctx); locked || err != nil {
		t.Fatalf("b IsLocked after ForceUnlock = %v, %v; want false", locked, err)
	}
	_, err = m.IsLocked(ctx)
	redistest.WantErr(t, err, lockkit.ErrClosed)
}

// TestQueries_member_without_them_is_unsupported checks that a member that
// cannot answer (a RedLock, here) makes every query fail with
// errors.ErrUnsupported before anything is sent: ForceUnlock frees none of
// the members.
func TestQueries_member_without_them_is_unsupported(t *testing.T) {
	_, rc := redistest.Mini(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	c := redistest.Lockkit(t, rc)
	a := redistest.Unique(t)
	held := reentrant.New(c, a)
	redistest.MustLock(t, held)
	m := multilock.New([]lockkit.Locker{reentrant.New(c, a), multilock.NewRedLock([]*lockkit.Client{c}, redistest.Unique(t))})
	sent := redistest.CountCommands(rc)

	if wantQueriesFail(t, ctx, m, errors.ErrUnsupported) {
		t.Fatal("ForceUnlock with an unsupported member reported a hold removed")
	}
	if n := sent.Total(); n != 0 {
		t.Fatalf("%d commands sent, want 0", n)
	}
	redistest.WantHoldCount(t, held, 1)
}

// TestQueries_invalid_Mutex_returns_ErrInvalid checks the queries of
// Mutexes not made by New, or made from bad arguments.
func TestQueries_invalid_Mutex_returns_ErrInvalid(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	for name, m := range map[string]*multilock.Mutex{"zero": new(multilock.Mutex), "nil": nil, "no locks": multilock.New(nil)} {
		t.Run(name, func(t *testing.T) {
			wantQueriesFail(t, ctx, m, lockkit.ErrInvalid)
		})
	}
}

// wantQueriesFail checks that each query of m (IsLocked, HoldCount, TTL)
// and ForceUnlock fails with an error matching target, and returns what
// ForceUnlock reported: whether it removed a hold.
func wantQueriesFail(t *testing.T, ctx context.Context, m *multilock.Mutex, target error) bool {
	t.Helper()
	_, err := m.IsLocked(ctx)
	redistest.WantErr(t, err, target)
	_, err = m.HoldCount(ctx)
	redistest.WantErr(t, err, target)
	_, err = m.TTL(ctx)
	redistest.WantErr(t, err, target)
	ok, err := m.ForceUnlock(ctx)
	redistest.WantErr(t, err, target)
	return ok
}
