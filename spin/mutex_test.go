package spin_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/spin"
)

func TestNew_invalid_arguments_return_ErrInvalid(t *testing.T) {
	_, c := redistest.Mini(t)
	var typedNil *redis.Client
	cases := []struct {
		name   string
		client redis.UniversalClient
		lock   string
		opts   []spin.Option
	}{
		{"nil client", nil, "x", nil},
		{"typed nil client", typedNil, "x", nil},
		{"empty name", c, "", nil},
		{"zero floor", c, "x", []spin.Option{spin.WithBackoff(0, time.Second)}},
		{"negative floor", c, "x", []spin.Option{spin.WithBackoff(-time.Millisecond, time.Second)}},
		{"floor above cap", c, "x", []spin.Option{spin.WithBackoff(2*time.Second, time.Second)}},
		{"zero lease", c, "x", []spin.Option{spin.WithLease(0)}},
		{"tiny watchdog timeout", c, "x", []spin.Option{spin.WithWatchdogTimeout(time.Millisecond)}},
		{"empty owner", c, "x", []spin.Option{spin.WithOwner("")}},
		{"reserved owner", c, "x", []spin.Option{spin.WithOwner(":me")}},
		{"braced prefix", c, "x", []spin.Option{spin.WithPrefix("a{b}")}},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := spin.New(tc.client, tc.lock, tc.opts...)
			redistest.WantErr(t, m.Lock(ctx), spin.ErrInvalid)
			_, err := m.TryLock(ctx)
			redistest.WantErr(t, err, spin.ErrInvalid)
			redistest.WantErr(t, m.Unlock(ctx), spin.ErrInvalid)
			_, err = m.ForceUnlock(ctx)
			redistest.WantErr(t, err, spin.ErrInvalid)
			_, err = m.IsLocked(ctx)
			redistest.WantErr(t, err, spin.ErrInvalid)
			_, err = m.HoldCount(ctx)
			redistest.WantErr(t, err, spin.ErrInvalid)
			_, err = m.TTL(ctx)
			redistest.WantErr(t, err, spin.ErrInvalid)
			if m.Token() != 0 || m.Lost() != nil {
				t.Fatal("an invalid Mutex reports a hold")
			}
		})
	}
	// Valid bounds, including floor == cap, are accepted.
	m := spin.New(c, "x", spin.WithBackoff(time.Millisecond, time.Millisecond))
	if ok, err := m.TryLock(ctx); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	redistest.MustUnlock(t, m)
}

func TestLock_reenters_same_owner(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		ctx := redistest.Ctx(t, hang)
		name := redistest.Unique(t)
		m := spin.New(c, name)
		redistest.MustLock(t, m)
		token := m.Token()
		if token <= 0 {
			t.Fatalf("Token() = %d after Lock", token)
		}
		redistest.MustLock(t, m)
		if ok, err := m.TryLock(ctx); !ok || err != nil {
			t.Fatalf("TryLock while held = %v, %v; want re-entry", ok, err)
		}
		if n, err := m.HoldCount(ctx); n != 3 || err != nil {
			t.Fatalf("HoldCount = %d, %v; want 3", n, err)
		}
		if m.Token() != token {
			t.Fatalf("re-entry changed the token from %d to %d", token, m.Token())
		}
		for i := range 3 {
			if err := m.Unlock(ctx); err != nil {
				t.Fatalf("Unlock %d: %v", i, err)
			}
		}
		if locked, err := m.IsLocked(ctx); locked || err != nil {
			t.Fatalf("IsLocked after the last Unlock = %v, %v", locked, err)
		}
		redistest.WantErr(t, m.Unlock(ctx), spin.ErrNotHeld)
		redistest.AssertClean(t, c, name)
	})
}

func TestLock_other_owner_is_excluded_until_release(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		ctx := redistest.Ctx(t, hang)
		name := redistest.Unique(t)
		a, b := spin.New(c, name), spin.New(c, name)
		redistest.MustLock(t, a)
		if ok, err := b.TryLock(ctx); ok || err != nil {
			t.Fatalf("TryLock of a held lock = %v, %v", ok, err)
		}
		redistest.WantErr(t, b.Unlock(ctx), spin.ErrNotHeld)
		if ttl, err := b.TTL(ctx); ttl <= 0 || ttl > 30*time.Second || err != nil {
			t.Fatalf("TTL = %v, %v; want the holder's lease", ttl, err)
		}

		// b waits; count its attempts through a second client so we know it
		// is in its backoff loop before a releases.
		cb := redistest.SpecClient(redistest.ClientSpec(c))
		defer cb.Close()
		counter := redistest.CountCommands(cb)
		b = spin.New(cb, name)
		done := make(chan error, 1)
		go func() { done <- b.Lock(ctx) }()
		redistest.Eventually(t, hang, "b to fail three attempts", func() bool { return counter.Scripts() >= 3 })
		select {
		case err := <-done:
			t.Fatalf("b.Lock returned %v while a holds the lock", err)
		default:
		}
		first := a.Token()
		redistest.MustUnlock(t, a)
		if err := redistest.Receive(t, done, hang, "b.Lock to return after a released the lock"); err != nil {
			t.Fatal(err)
		}
		if b.Token() <= first {
			t.Fatalf("token went from %d to %d", first, b.Token())
		}
		redistest.MustUnlock(t, b)
		redistest.AssertClean(t, c, name)
	})
}

func TestLock_ctx_end_matches_both_errors(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		ctx := redistest.Ctx(t, hang)
		name := redistest.Unique(t)
		a, b := spin.New(c, name), spin.New(c, name)
		redistest.MustLock(t, a)
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		redistest.WantErr(t, b.Lock(short), spin.ErrNotObtained, context.DeadlineExceeded)
		if n, err := b.HoldCount(ctx); n != 0 || err != nil {
			t.Fatalf("HoldCount after a failed Lock = %d, %v", n, err)
		}
		if b.Token() != 0 || b.Lost() != nil {
			t.Fatal("a failed Lock left a hold behind")
		}
		done, cancel2 := context.WithCancel(ctx)
		cancel2()
		redistest.WantErr(t, b.Lock(done), spin.ErrNotObtained, context.Canceled)
		// Even a free lock is not taken with a dead ctx.
		redistest.MustUnlock(t, a)
		redistest.WantErr(t, b.Lock(done), spin.ErrNotObtained, context.Canceled)
		redistest.AssertClean(t, c, name)
	})
}

func TestLost_closes_when_hold_vanishes(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	c := redistest.StartServer(t).Client(t)
	counter := redistest.CountCommands(c)
	name := redistest.Unique(t)
	m := spin.New(c, name, spin.WithWatchdogTimeout(300*time.Millisecond))
	redistest.MustLock(t, m)
	lost := m.Lost()
	// The watchdog keeps the lease alive past its first terms.
	counter.Reset()
	redistest.Eventually(t, hang, "two renewals", func() bool { return counter.Scripts() >= 2 })
	if locked, err := m.IsLocked(ctx); !locked || err != nil || !lostOpen(lost) {
		t.Fatalf("after two renewals: IsLocked = %v, %v; lost = %v", locked, err, !lostOpen(lost))
	}
	if err := c.Del(ctx, "lockkit:{"+name+"}").Err(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, lost, hang, "Lost() to close after the key vanished")
	redistest.WantErr(t, m.Unlock(ctx), spin.ErrLost)
	redistest.WantErr(t, m.Unlock(ctx), spin.ErrNotHeld)
	redistest.AssertClean(t, c, name)
}

func lostOpen(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return false
	default:
		return true
	}
}

func TestForceUnlock_frees_and_holder_sees_ErrLost(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		ctx := redistest.Ctx(t, hang)
		name := redistest.Unique(t)
		a, b := spin.New(c, name), spin.New(c, name)
		redistest.MustLock(t, a)
		redistest.MustLock(t, a)
		if ok, err := b.ForceUnlock(ctx); !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v", ok, err)
		}
		if ok, err := b.ForceUnlock(ctx); ok || err != nil {
			t.Fatalf("second ForceUnlock = %v, %v; want false", ok, err)
		}
		if ok, err := b.TryLock(ctx); !ok || err != nil {
			t.Fatalf("TryLock after ForceUnlock = %v, %v", ok, err)
		}
		redistest.WantErr(t, a.Unlock(ctx), spin.ErrLost)
		redistest.MustUnlock(t, b)
		redistest.AssertClean(t, c, name)
	})
}

func TestLock_fixed_lease_expires_and_next_owner_gets_it(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	c := redistest.StartServer(t).Client(t)
	name := redistest.Unique(t)
	a := spin.New(c, name, spin.WithLease(100*time.Millisecond))
	b := spin.New(c, name)
	redistest.MustLock(t, a)
	start := time.Now()
	redistest.MustLock(t, b)
	if waited := time.Since(start); waited > 100*time.Millisecond+time.Second {
		t.Fatalf("b got the lock %v after a's 100ms lease began", waited)
	}
	redistest.Receive(t, a.Lost(), hang, "a.Lost() to close when its lease ended")
	redistest.WantErr(t, a.Unlock(ctx), spin.ErrLost)
	redistest.MustUnlock(t, b)
	redistest.AssertClean(t, c, name)
}

// TestLock_sleep_never_outlasts_holder_lease shows that a waiter whose
// backoff would sleep for a minute still takes the lock as soon as the
// holder's lease ends: each sleep is cut to the lease the attempt reported.
func TestLock_sleep_never_outlasts_holder_lease(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	name := redistest.Unique(t)
	a := spin.New(c, name, spin.WithLease(150*time.Millisecond))
	b := spin.New(c, name, spin.WithBackoff(time.Minute, time.Minute))
	redistest.MustLock(t, a)
	start := time.Now()
	redistest.MustLock(t, b)
	// Without the cut, the first sleep alone exceeds 3 s with probability 0.95.
	if waited := time.Since(start); waited > 150*time.Millisecond+time.Second {
		t.Fatalf("b waited %v for a 150ms lease", waited)
	}
	redistest.MustUnlock(t, b)
	redistest.AssertClean(t, c, name)
}

// TestLock_goroutines_exclude_each_other hammers one name with many owners
// and checks that no two are ever inside at once.
func TestLock_goroutines_exclude_each_other(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		name := redistest.Unique(t)
		const owners, rounds = 8, 20
		lockers := make([]redistest.Locker, owners)
		for i := range lockers {
			lockers[i] = spin.New(c, name, spin.WithBackoff(time.Millisecond, 8*time.Millisecond))
		}
		total, err := redistest.Hammer(redistest.Ctx(t, hang), lockers, rounds)
		if err != nil {
			t.Fatal(err)
		}
		if total != owners*rounds {
			t.Fatalf("%d critical sections ran, want %d", total, owners*rounds)
		}
		redistest.AssertClean(t, c, name)
	})
}
