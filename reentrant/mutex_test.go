package reentrant_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Kind{
		Name: "reentrant",
		New: func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
			return reentrant.New(c, name, opts...)
		},
		Zero: func() []lockkit.Locker { return []lockkit.Locker{new(reentrant.Mutex), (*reentrant.Mutex)(nil)} },
	})
}

func TestTTL_reports_lease(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		m := reentrant.New(redistest.Lockkit(t, c), redistest.Unique(t), lockkit.WithLease(time.Minute))
		if d, err := m.TTL(redistest.Ctx(t, time.Second)); d != 0 || err != nil {
			t.Fatalf("TTL of a free lock = %v, %v; want 0", d, err)
		}
		redistest.MustLock(t, m)
		d, err := m.TTL(redistest.Ctx(t, time.Second))
		if err != nil || d <= 50*time.Second || d > time.Minute {
			t.Fatalf("TTL = %v, %v; want about 1m", d, err)
		}
		redistest.MustUnlock(t, m)
	})
}

func TestLock_reenters_while_others_wait(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		a, b := reentrant.New(lc, name), reentrant.New(lc, name)
		redistest.MustLock(t, a)
		got := make(chan error, 1)
		go func() { got <- b.Lock(redistest.Ctx(t, 20*time.Second)) }()
		waitAsleep(t, lc, name, 1)
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

// TestLock_reenters_with_longer_lease_only checks that re-entry never
// shortens the lease another acquire of the same hold asked for.
func TestLock_reenters_with_longer_lease_only(t *testing.T) {
	srv := redistest.StartServer(t)
	lc := redistest.Lockkit(t, srv.Client(t))
	name := redistest.Unique(t)
	long := reentrant.New(lc, name, lockkit.WithOwner("job"), lockkit.WithLease(time.Minute))
	short := reentrant.New(lc, name, lockkit.WithOwner("job"), lockkit.WithLease(time.Second))
	redistest.MustLock(t, long)
	redistest.MustLock(t, short)
	if d, err := long.TTL(redistest.Ctx(t, time.Second)); err != nil || d < 50*time.Second {
		t.Fatalf("TTL after a re-entry with a shorter lease = %v, %v; want about 1m", d, err)
	}
}

// TestLock_other_kind_returns_ErrWrongKind checks that one name is one
// kind: a spin lock of the name a reentrant lock holds is refused and
// changes nothing, and the other way round.
func TestLock_other_kind_returns_ErrWrongKind(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		m := reentrant.New(lc, name)
		redistest.MustLock(t, m)
		s := spin.New(lc, name)
		_, err := s.TryLock(redistest.Ctx(t, time.Second))
		redistest.WantErr(t, err, lockkit.ErrWrongKind)
		_, err = s.ForceUnlock(redistest.Ctx(t, time.Second))
		redistest.WantErr(t, err, lockkit.ErrWrongKind)
		redistest.WantHoldCount(t, m, 1)
		redistest.MustUnlock(t, m)

		redistest.MustLock(t, s)
		_, err = m.TryLock(redistest.Ctx(t, time.Second))
		redistest.WantErr(t, err, lockkit.ErrWrongKind)
		redistest.WantErr(t, m.Lock(redistest.Ctx(t, time.Second)), lockkit.ErrWrongKind)
		redistest.MustUnlock(t, s)
	})
}

func TestWatchdog_keeps_lock_past_several_leases(t *testing.T) {
	// Real servers only: miniredis TTLs do not count down by themselves.
	servers := []redistest.Backend{redistest.ServerBackend, redistest.ClusterBackend}
	redistest.ForEachBackend(t, servers, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		const lease = 300 * time.Millisecond
		// Several holds in different slots, renewed together (on Cluster
		// the pipeline is split by slot).
		var holds []*reentrant.Mutex
		for range 4 {
			m := reentrant.New(lc, redistest.Unique(t), lockkit.WithWatchdogTimeout(lease))
			redistest.MustLock(t, m)
			holds = append(holds, m)
		}
		// Another owner waits for more than three leases; it must not get
		// the lock.
		ctx, cancel := context.WithTimeout(context.Background(), 4*lease)
		defer cancel()
		err := reentrant.New(lc, holds[0].Name()).Lock(ctx)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("other owner's Lock = %v; want the deadline to pass while the lock is held", err)
		}
		for _, m := range holds {
			select {
			case <-m.Lost():
				t.Fatal("hold reported lost")
			default:
			}
			if d, err := m.TTL(redistest.Ctx(t, time.Second)); err != nil || d <= 0 {
				t.Fatalf("TTL = %v, %v; want a live lease", d, err)
			}
			redistest.WantHoldCount(t, m, 1)
			redistest.MustUnlock(t, m)
		}
	})
}
