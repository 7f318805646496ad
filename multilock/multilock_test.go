package multilock_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

// Every exclusive lock of the module is a Locker.
var (
	_ multilock.Locker = (*reentrant.Mutex)(nil)
	_ multilock.Locker = (*spin.Mutex)(nil)
	_ multilock.Locker = (*multilock.RedLock)(nil)
	_ multilock.Locker = (*multilock.MultiLock)(nil)
)

func TestNew_invalid_arguments_return_ErrInvalid(t *testing.T) {
	_, c := redistest.Mini(t)
	a := reentrant.New(c, "a")
	var typedNil *reentrant.Mutex
	cases := []struct {
		name  string
		locks []multilock.Locker
		opts  []multilock.Option
	}{
		{"no locks", nil, nil},
		{"nil lock", []multilock.Locker{a, nil}, nil},
		{"typed nil lock", []multilock.Locker{a, typedNil}, nil},
		{"same value twice", []multilock.Locker{a, reentrant.New(c, "b"), a}, nil},
		{"zero lock wait", []multilock.Locker{a}, []multilock.Option{multilock.WithLockWait(0)}},
		{"invalid member", []multilock.Locker{reentrant.New(c, "")}, nil},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := multilock.New(tc.locks, tc.opts...)
			mustErr(t, m.Lock(ctx), multilock.ErrInvalid)
			_, err := m.TryLock(ctx)
			mustErr(t, err, multilock.ErrInvalid)
			mustErr(t, m.Unlock(ctx), multilock.ErrInvalid)
		})
	}
}

func TestNew_orders_locks_by_name(t *testing.T) {
	_, c := redistest.Mini(t)
	b, a, d := reentrant.New(c, "b"), spin.New(c, "a"), reentrant.New(c, "d")
	m := multilock.New([]multilock.Locker{b, d, a})
	if got, want := m.Locks(), []multilock.Locker{a, b, d}; !slices.Equal(got, want) {
		t.Fatalf("Locks() = %v, want %v", got, want)
	}
	if m.Name() != "a+b+d" {
		t.Fatalf("Name() = %q", m.Name())
	}
}

// TestNew_flattens_nested_multilocks checks that a MultiLock member is
// replaced by its locks: ordered by its joined name "a+z" it would be taken
// before "m" while a caller of {m, z} takes m before z, and the two could
// deadlock.
func TestNew_flattens_nested_multilocks(t *testing.T) {
	_, c := redistest.Mini(t)
	a, z, m := reentrant.New(c, "a"), reentrant.New(c, "z"), spin.New(c, "m")
	inner := multilock.New([]multilock.Locker{z, a})
	outer := multilock.New([]multilock.Locker{inner, m})
	if got, want := outer.Locks(), []multilock.Locker{a, m, z}; !slices.Equal(got, want) {
		t.Fatalf("Locks() = %v, want %v", got, want)
	}
	dup := multilock.New([]multilock.Locker{inner, a})
	mustErr(t, dup.Lock(context.Background()), multilock.ErrInvalid)
	bad := multilock.New([]multilock.Locker{multilock.New(nil), m})
	mustErr(t, bad.Lock(context.Background()), multilock.ErrInvalid)
}

func TestLock_takes_every_lock_and_Unlock_frees_them(t *testing.T) {
	for _, backend := range []string{"miniredis", "redis"} {
		t.Run(backend, func(t *testing.T) {
			ctx := testCtx(t)
			var c *redis.Client
			if backend == "miniredis" {
				_, c = redistest.Mini(t)
			} else {
				c = redistest.StartServer(t).Client(t)
			}
			names := []string{redistest.Unique(t), redistest.Unique(t), redistest.Unique(t)}
			m := multilock.New([]multilock.Locker{
				reentrant.New(c, names[0]), spin.New(c, names[1]), reentrant.New(c, names[2]),
			})
			if err := m.Lock(ctx); err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if ok, err := reentrant.New(c, n).TryLock(ctx); ok || err != nil {
					t.Fatalf("%s: another owner's TryLock = %v, %v while the MultiLock holds it", n, ok, err)
				}
			}
			if err := m.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				assertClean(t, c, n)
			}
			mustErr(t, m.Unlock(ctx), multilock.ErrNotHeld)
			if ok, err := m.TryLock(ctx); !ok || err != nil {
				t.Fatalf("TryLock of free locks = %v, %v", ok, err)
			}
			if err := m.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				assertClean(t, c, n)
			}
		})
	}
}

// TestLock_opposite_orders_never_deadlock has two callers lock the same two
// locks, on two servers, given in opposite orders, 100 times each. Taken in
// the given order they would deadlock within a few rounds (each holding one
// and waiting for the other until ctx ends).
func TestLock_opposite_orders_never_deadlock(t *testing.T) {
	ctx := testCtx(t)
	servers := redistest.StartMasters(t, 2)
	c1, c2 := servers[0].Client(t), servers[1].Client(t)
	a, b := redistest.Unique(t), redistest.Unique(t)
	var inside [2]atomic.Int32
	var rounds atomic.Int32
	caller := func(first, second multilock.Locker) error {
		m := multilock.New([]multilock.Locker{first, second})
		for range 100 {
			if err := m.Lock(ctx); err != nil {
				return err
			}
			for i := range inside {
				if inside[i].Add(1) != 1 {
					return fmt.Errorf("two holders of lock %d", i)
				}
			}
			rounds.Add(1)
			for i := range inside {
				inside[i].Add(-1)
			}
			if err := m.Unlock(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make(chan error, 2)
	go func() { errs <- caller(reentrant.New(c1, a), reentrant.New(c2, b)) }()
	go func() { errs <- caller(reentrant.New(c2, b), reentrant.New(c1, a)) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if rounds.Load() != 200 {
		t.Fatalf("%d rounds, want 200", rounds.Load())
	}
	assertClean(t, c1, a)
	assertClean(t, c2, b)
}

// TestLock_same_name_locks_are_tried_not_waited_on has two callers lock two
// distinct locks with the same name (on two servers) in opposite orders:
// their order cannot be fixed by name, so they are only ever tried.
func TestLock_same_name_locks_are_tried_not_waited_on(t *testing.T) {
	ctx := testCtx(t)
	servers := redistest.StartMasters(t, 2)
	c1, c2 := servers[0].Client(t), servers[1].Client(t)
	name := redistest.Unique(t)
	var inside atomic.Int32
	caller := func(first, second multilock.Locker) error {
		m := multilock.New([]multilock.Locker{first, second})
		for range 50 {
			if err := m.Lock(ctx); err != nil {
				return err
			}
			if inside.Add(1) != 1 {
				return errors.New("two holders")
			}
			inside.Add(-1)
			if err := m.Unlock(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make(chan error, 2)
	go func() { errs <- caller(spin.New(c1, name), spin.New(c2, name)) }()
	go func() { errs <- caller(spin.New(c2, name), spin.New(c1, name)) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	assertClean(t, c1, name)
	assertClean(t, c2, name)
}

// TestLock_partial_acquisition_is_rolled_back locks {a, b} while another
// owner holds b: a is taken first (names sort so) and must be released
// again, by Lock when its ctx ends, by TryLock at once, and by every round
// that WithLockWait cuts short.
func TestLock_partial_acquisition_is_rolled_back(t *testing.T) {
	ctx := testCtx(t)
	s := redistest.StartServer(t)
	c := s.Client(t)
	counter := redistest.NewCounter()
	ca := s.Client(t)
	ca.AddHook(counter.Hook())
	a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
	other := reentrant.New(c, b)
	if err := other.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	memberA := reentrant.New(ca, a)
	m := multilock.New([]multilock.Locker{reentrant.New(c, b), memberA})

	mustErr(t, m.Lock(shortCtx(t, 200*time.Millisecond)), multilock.ErrNotObtained, context.DeadlineExceeded)
	if counter.Scripts() < 2 {
		t.Fatalf("a saw %d scripts; want it taken and released", counter.Scripts())
	}
	assertClean(t, c, a)
	if n, err := memberA.HoldCount(ctx); n != 0 || err != nil {
		t.Fatalf("a's HoldCount = %d, %v after the failed Lock", n, err)
	}

	if ok, err := m.TryLock(ctx); ok || err != nil {
		t.Fatalf("TryLock = %v, %v; want false, nil", ok, err)
	}
	assertClean(t, c, a)

	// With a bound on each wait, Lock gives up on b and starts over.
	counter.Reset()
	m = multilock.New([]multilock.Locker{reentrant.New(c, b), memberA}, multilock.WithLockWait(20*time.Millisecond))
	err := m.Lock(shortCtx(t, time.Second))
	mustErr(t, err, multilock.ErrNotObtained, context.DeadlineExceeded)
	if rounds := counter.Scripts() / 2; rounds < 2 {
		t.Fatalf("a was taken and released %d times; want several rounds", rounds)
	}
	assertClean(t, c, a)

	// Once b is free, Lock gets both.
	if err := other.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	assertClean(t, c, a)
	assertClean(t, c, b)
}

// TestLock_starts_over_after_a_lock_fails takes {a, b} with b on a server
// that is down: each round takes a, fails on b and releases a, until the
// server is back.
func TestLock_starts_over_after_a_lock_fails(t *testing.T) {
	ctx := testCtx(t)
	servers := redistest.StartMasters(t, 2)
	c1 := servers[0].Client(t)
	// No client-side retries, so each round fails fast.
	c2 := redis.NewClient(&redis.Options{Addr: servers[1].Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = c2.Close() })
	counter := redistest.NewCounter()
	c2.AddHook(counter.Hook())
	a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
	m := multilock.New([]multilock.Locker{reentrant.New(c1, a), reentrant.New(c2, b)})
	servers[1].Kill(t)

	done := make(chan error, 1)
	go func() { done <- m.Lock(ctx) }()
	waitFor(t, "three failed rounds", func() bool { return counter.Scripts() >= 3 })
	select {
	case err := <-done:
		t.Fatalf("Lock returned %v while b's server is down", err)
	default:
	}
	servers[1].Restart(t)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	assertClean(t, c1, a)
	assertClean(t, c2, b)

	// With ctx ending while b's server is down, the error says why.
	servers[1].Kill(t)
	err := m.Lock(shortCtx(t, 1500*time.Millisecond))
	mustErr(t, err, multilock.ErrNotObtained, context.DeadlineExceeded)
	if !strings.Contains(err.Error(), "last failure") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error %q does not give the last failure", err)
	}
	assertClean(t, c1, a)
}

func TestUnlock_joins_errors_and_frees_the_rest(t *testing.T) {
	ctx := testCtx(t)
	c := redistest.StartServer(t).Client(t)
	a, b := redistest.Unique(t), redistest.Unique(t)
	m := multilock.New([]multilock.Locker{reentrant.New(c, a), spin.New(c, b)})
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := reentrant.New(c, a).ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	err := m.Unlock(ctx)
	mustErr(t, err, multilock.ErrLost)
	if errors.Is(err, multilock.ErrNotHeld) {
		t.Fatalf("Unlock = %v; b was held", err)
	}
	assertClean(t, c, a)
	assertClean(t, c, b)
	mustErr(t, m.Unlock(ctx), multilock.ErrNotHeld)
}

// TestLock_on_cluster_with_locks_in_different_slots runs two callers over
// three locks that live on the three masters of a cluster, in opposite
// orders.
func TestLock_on_cluster_with_locks_in_different_slots(t *testing.T) {
	ctx := testCtx(t)
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	names := distinctMasters(t, cc, 3)
	slots := map[int64]bool{}
	for _, n := range names {
		slot, err := cc.ClusterKeySlot(ctx, lockKey(n)).Result()
		if err != nil {
			t.Fatal(err)
		}
		slots[slot] = true
	}
	if len(slots) != 3 {
		t.Fatalf("locks share slots: %v", slots)
	}
	var inside atomic.Int32
	caller := func(locks ...multilock.Locker) error {
		m := multilock.New(locks)
		for range 30 {
			if err := m.Lock(ctx); err != nil {
				return err
			}
			if inside.Add(1) != 1 {
				return errors.New("two holders")
			}
			inside.Add(-1)
			if err := m.Unlock(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make(chan error, 2)
	go func() {
		errs <- caller(reentrant.New(cc, names[0]), spin.New(cc, names[1]), reentrant.New(cc, names[2]))
	}()
	go func() {
		errs <- caller(reentrant.New(cc, names[2]), spin.New(cc, names[1]), reentrant.New(cc, names[0]))
	}()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		assertClean(t, cc, n)
	}
}

// distinctMasters returns n unique lock names whose keys live on n
// different masters of the cluster.
func distinctMasters(t *testing.T, cc *redis.ClusterClient, n int) []string {
	t.Helper()
	var names []string
	seen := map[string]bool{}
	for range 1000 {
		name := redistest.Unique(t)
		node, err := cc.MasterForKey(context.Background(), lockKey(name))
		if err != nil {
			t.Fatal(err)
		}
		if addr := node.Options().Addr; !seen[addr] {
			seen[addr] = true
			names = append(names, name)
			if len(names) == n {
				return names
			}
		}
	}
	t.Fatalf("found no %d names on distinct masters", n)
	return nil
}
