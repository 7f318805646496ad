package reentrant_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

func TestLock_reenters_same_owner(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		m := reentrant.New(c, redistest.Unique(t))
		redistest.MustLock(t, m)
		token := m.Token()
		redistest.MustLock(t, m)
		if ok, err := m.TryLock(redistest.Ctx(t, time.Second)); !ok || err != nil {
			t.Fatalf("TryLock by holder = %v, %v; want re-entry", ok, err)
		}
		redistest.WantHoldCount(t, m, 3)
		if m.Token() != token {
			t.Fatalf("re-entry changed token %d -> %d", token, m.Token())
		}
		redistest.MustUnlock(t, m)
		redistest.MustUnlock(t, m)
		redistest.WantHoldCount(t, m, 1)
		if locked, _ := m.IsLocked(redistest.Ctx(t, time.Second)); !locked {
			t.Fatal("lock freed while held once")
		}
		redistest.MustUnlock(t, m)
		redistest.WantHoldCount(t, m, 0)
		if locked, _ := m.IsLocked(redistest.Ctx(t, time.Second)); locked {
			t.Fatal("lock still held after the last Unlock")
		}
		if m.Token() != 0 {
			t.Fatalf("Token after release = %d, want 0", m.Token())
		}
		if err := m.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, reentrant.ErrNotHeld) {
			t.Fatalf("extra Unlock = %v, want ErrNotHeld", err)
		}
	})
}

func TestUnlock_other_owner_returns_ErrNotHeld(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		name := redistest.Unique(t)
		a, b := reentrant.New(c, name), reentrant.New(c, name)
		redistest.MustLock(t, a)
		if ok, err := b.TryLock(redistest.Ctx(t, time.Second)); ok || err != nil {
			t.Fatalf("TryLock by other owner = %v, %v; want false", ok, err)
		}
		err := b.Unlock(redistest.Ctx(t, time.Second))
		if !errors.Is(err, reentrant.ErrNotHeld) || errors.Is(err, reentrant.ErrLost) {
			t.Fatalf("Unlock by other owner = %v, want ErrNotHeld only", err)
		}
		redistest.WantHoldCount(t, a, 1)
		redistest.MustUnlock(t, a)
	})
}

func TestToken_strictly_increases_across_owners(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		name := redistest.Unique(t)
		var last int64
		for i := range 5 {
			m := reentrant.New(c, name)
			redistest.MustLock(t, m)
			if tok := m.Token(); tok <= last {
				t.Fatalf("hold %d: token %d not above %d", i, tok, last)
			} else {
				last = tok
			}
			redistest.MustUnlock(t, m)
		}
	})
}

func TestLock_waits_for_release(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		name := redistest.Unique(t)
		a, b := reentrant.New(c, name), reentrant.New(c, name)
		redistest.MustLock(t, a)
		got := make(chan error, 1)
		go func() { got <- b.Lock(redistest.Ctx(t, 20*time.Second)) }()
		select {
		case err := <-got:
			t.Fatalf("Lock returned %v while another owner held the lock", err)
		default:
		}
		waitAsleep(t, c, name, 1)
		redistest.MustUnlock(t, a)
		if err := <-got; err != nil {
			t.Fatalf("waiter Lock: %v", err)
		}
		if b.Token() <= 0 {
			t.Fatal("waiter holds no token")
		}
		redistest.MustUnlock(t, b)
	})
}

// TestLock_excludes_in_process checks mutual exclusion in one process: G
// owners, each locking N times, never overlap.
func TestLock_excludes_in_process(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		name := redistest.Unique(t)
		const G, N = 8, 20
		owners := make([]redistest.Locker, G)
		for i := range owners {
			owners[i] = reentrant.New(c, name)
		}
		total, err := redistest.Hammer(redistest.Ctx(t, 60*time.Second), owners, N)
		if err != nil {
			t.Fatal(err)
		}
		if total != G*N {
			t.Fatalf("%d acquisitions, want %d", total, G*N)
		}
	})
}

func TestForceUnlock_frees_and_wakes_waiters(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		name := redistest.Unique(t)
		a, b := reentrant.New(c, name), reentrant.New(c, name)
		redistest.MustLock(t, a)
		redistest.MustLock(t, a)
		got := make(chan error, 1)
		go func() { got <- b.Lock(redistest.Ctx(t, 20*time.Second)) }()
		waitAsleep(t, c, name, 1)
		ok, err := reentrant.New(c, name).ForceUnlock(redistest.Ctx(t, time.Second))
		if !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
		}
		if err := <-got; err != nil {
			t.Fatalf("waiter after ForceUnlock: %v", err)
		}
		if err := a.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, reentrant.ErrLost) {
			t.Fatalf("Unlock by force-unlocked owner = %v, want ErrLost", err)
		}
		redistest.MustUnlock(t, b)
		if ok, err := b.ForceUnlock(redistest.Ctx(t, time.Second)); ok || err != nil {
			t.Fatalf("ForceUnlock on a free lock = %v, %v; want false", ok, err)
		}
	})
}

func TestTTL_reports_lease(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		m := reentrant.New(c, redistest.Unique(t), reentrant.WithLease(time.Minute))
		if d, err := m.TTL(redistest.Ctx(t, time.Second)); d != 0 || err != nil {
			t.Fatalf("TTL of free lock = %v, %v; want 0", d, err)
		}
		redistest.MustLock(t, m)
		d, err := m.TTL(redistest.Ctx(t, time.Second))
		if err != nil || d <= 50*time.Second || d > time.Minute {
			t.Fatalf("TTL = %v, %v; want about 1m", d, err)
		}
		redistest.MustUnlock(t, m)
	})
}

func TestWithOwner_shares_hold(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		name := redistest.Unique(t)
		a := reentrant.New(c, name, reentrant.WithOwner("job-7"))
		b := reentrant.New(c, name, reentrant.WithOwner("job-7"))
		redistest.MustLock(t, a)
		if ok, err := b.TryLock(redistest.Ctx(t, time.Second)); !ok || err != nil {
			t.Fatalf("same owner id TryLock = %v, %v; want re-entry", ok, err)
		}
		if a.Token() != b.Token() {
			t.Fatalf("tokens differ: %d vs %d", a.Token(), b.Token())
		}
		redistest.WantHoldCount(t, a, 2)
		redistest.MustUnlock(t, b)
		redistest.MustUnlock(t, a)
		redistest.WantHoldCount(t, a, 0)
	})
}

func TestLock_ctx_deadline_matches_both_errors(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		name := redistest.Unique(t)
		a := reentrant.New(c, name)
		redistest.MustLock(t, a)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		redistest.WantErr(t, reentrant.New(c, name).Lock(ctx), reentrant.ErrNotObtained, context.DeadlineExceeded)
		redistest.MustUnlock(t, a)
	})
}

func TestLock_reenters_while_others_wait(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		name := redistest.Unique(t)
		a := reentrant.New(c, name)
		redistest.MustLock(t, a)
		b := reentrant.New(c, name)
		got := make(chan error, 1)
		go func() { got <- b.Lock(redistest.Ctx(t, 20*time.Second)) }()
		waitAsleep(t, c, name, 1)
		// The holder re-enters at once, not behind the waiter.
		if err := a.Lock(redistest.Ctx(t, 2*time.Second)); err != nil {
			t.Fatalf("re-entry with a waiter queued: %v", err)
		}
		redistest.WantHoldCount(t, a, 2)
		redistest.MustUnlock(t, a)
		redistest.MustUnlock(t, a)
		if err := <-got; err != nil {
			t.Fatalf("waiter: %v", err)
		}
		redistest.MustUnlock(t, b)
	})
}
