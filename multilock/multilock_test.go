package multilock_test

import (
	"context"
	"errors"
	"slices"
	"strings"
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
			redistest.WantErr(t, m.Lock(ctx), multilock.ErrInvalid)
			_, err := m.TryLock(ctx)
			redistest.WantErr(t, err, multilock.ErrInvalid)
			redistest.WantErr(t, m.Unlock(ctx), multilock.ErrInvalid)
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
	redistest.WantErr(t, dup.Lock(context.Background()), multilock.ErrInvalid)
	bad := multilock.New([]multilock.Locker{multilock.New(nil), m})
	redistest.WantErr(t, bad.Lock(context.Background()), multilock.ErrInvalid)
}

func TestLock_takes_every_lock_and_Unlock_frees_them(t *testing.T) {
	backends := []redistest.Backend{redistest.MiniBackend, redistest.ServerBackend}
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		ctx := redistest.Ctx(t, hang)
		names := []string{redistest.Unique(t), redistest.Unique(t), redistest.Unique(t)}
		m := multilock.New([]multilock.Locker{
			reentrant.New(c, names[0]), spin.New(c, names[1]), reentrant.New(c, names[2]),
		})
		redistest.MustLock(t, m)
		for _, n := range names {
			if ok, err := reentrant.New(c, n).TryLock(ctx); ok || err != nil {
				t.Fatalf("%s: another owner's TryLock = %v, %v while the MultiLock holds it", n, ok, err)
			}
		}
		redistest.MustUnlock(t, m)
		for _, n := range names {
			redistest.AssertClean(t, c, n)
		}
		redistest.WantErr(t, m.Unlock(ctx), multilock.ErrNotHeld)
		if ok, err := m.TryLock(ctx); !ok || err != nil {
			t.Fatalf("TryLock of free locks = %v, %v", ok, err)
		}
		redistest.MustUnlock(t, m)
		for _, n := range names {
			redistest.AssertClean(t, c, n)
		}
	})
}

// TestLock_opposite_orders_never_deadlock has two callers lock the same two
// locks, on two servers, given in opposite orders, 100 times each. Taken in
// the given order they would deadlock within a few rounds (each holding one
// and waiting for the other until ctx ends).
func TestLock_opposite_orders_never_deadlock(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	servers := redistest.StartMasters(t, 2)
	c1, c2 := servers[0].Client(t), servers[1].Client(t)
	a, b := redistest.Unique(t), redistest.Unique(t)
	rounds, err := redistest.Hammer(ctx, []redistest.Locker{
		multilock.New([]multilock.Locker{reentrant.New(c1, a), reentrant.New(c2, b)}),
		multilock.New([]multilock.Locker{reentrant.New(c2, b), reentrant.New(c1, a)}),
	}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if rounds != 200 {
		t.Fatalf("%d rounds, want 200", rounds)
	}
	redistest.AssertClean(t, c1, a)
	redistest.AssertClean(t, c2, b)
}

// TestLock_same_name_locks_are_tried_not_waited_on has two callers lock two
// distinct locks with the same name (on two servers) in opposite orders:
// their order cannot be fixed by name, so they are only ever tried.
func TestLock_same_name_locks_are_tried_not_waited_on(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	servers := redistest.StartMasters(t, 2)
	c1, c2 := servers[0].Client(t), servers[1].Client(t)
	name := redistest.Unique(t)
	if _, err := redistest.Hammer(ctx, []redistest.Locker{
		multilock.New([]multilock.Locker{spin.New(c1, name), spin.New(c2, name)}),
		multilock.New([]multilock.Locker{spin.New(c2, name), spin.New(c1, name)}),
	}, 50); err != nil {
		t.Fatal(err)
	}
	redistest.AssertClean(t, c1, name)
	redistest.AssertClean(t, c2, name)
}

// TestLock_partial_acquisition_is_rolled_back locks {a, b} while another
// owner holds b: a is taken first (names sort so) and must be released
// again, by Lock when its ctx ends, by TryLock at once, and by every round
// that WithLockWait cuts short.
func TestLock_partial_acquisition_is_rolled_back(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	s := redistest.StartServer(t)
	c := s.Client(t)
	ca := s.Client(t)
	counter := redistest.CountCommands(ca)
	a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
	other := reentrant.New(c, b)
	redistest.MustLock(t, other)
	memberA := reentrant.New(ca, a)
	m := multilock.New([]multilock.Locker{reentrant.New(c, b), memberA})

	redistest.WantErr(t, m.Lock(redistest.Ctx(t, 200*time.Millisecond)), multilock.ErrNotObtained, context.DeadlineExceeded)
	if counter.Scripts() < 2 {
		t.Fatalf("a saw %d scripts; want it taken and released", counter.Scripts())
	}
	redistest.AssertClean(t, c, a)
	if n, err := memberA.HoldCount(ctx); n != 0 || err != nil {
		t.Fatalf("a's HoldCount = %d, %v after the failed Lock", n, err)
	}

	if ok, err := m.TryLock(ctx); ok || err != nil {
		t.Fatalf("TryLock = %v, %v; want false, nil", ok, err)
	}
	redistest.AssertClean(t, c, a)

	// With a bound on each wait, Lock gives up on b and starts over.
	counter.Reset()
	m = multilock.New([]multilock.Locker{reentrant.New(c, b), memberA}, multilock.WithLockWait(20*time.Millisecond))
	err := m.Lock(redistest.Ctx(t, time.Second))
	redistest.WantErr(t, err, multilock.ErrNotObtained, context.DeadlineExceeded)
	if rounds := counter.Scripts() / 2; rounds < 2 {
		t.Fatalf("a was taken and released %d times; want several rounds", rounds)
	}
	redistest.AssertClean(t, c, a)

	// Once b is free, Lock gets both.
	redistest.MustUnlock(t, other)
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
	redistest.AssertClean(t, c, a)
	redistest.AssertClean(t, c, b)
}

// TestLock_starts_over_after_a_lock_fails takes {a, b} with b on a server
// that is down: each round takes a, fails on b and releases a, until the
// server is back.
func TestLock_starts_over_after_a_lock_fails(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	servers := redistest.StartMasters(t, 2)
	c1 := servers[0].Client(t)
	// No client-side retries, so each round fails fast.
	c2 := redis.NewClient(&redis.Options{Addr: servers[1].Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = c2.Close() })
	counter := redistest.CountCommands(c2)
	a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
	m := multilock.New([]multilock.Locker{reentrant.New(c1, a), reentrant.New(c2, b)})
	servers[1].Kill(t)

	done := make(chan error, 1)
	go func() { done <- m.Lock(ctx) }()
	redistest.Eventually(t, hang, "three failed rounds", func() bool { return counter.Scripts() >= 3 })
	select {
	case err := <-done:
		t.Fatalf("Lock returned %v while b's server is down", err)
	default:
	}
	servers[1].Restart(t)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, m)
	redistest.AssertClean(t, c1, a)
	redistest.AssertClean(t, c2, b)

	// With ctx ending while b's server is down, the error says why.
	servers[1].Kill(t)
	err := m.Lock(redistest.Ctx(t, 1500*time.Millisecond))
	redistest.WantErr(t, err, multilock.ErrNotObtained, context.DeadlineExceeded)
	if !strings.Contains(err.Error(), "last failure") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error %q does not give the last failure", err)
	}
	redistest.AssertClean(t, c1, a)
}

func TestUnlock_joins_errors_and_frees_the_rest(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	c := redistest.StartServer(t).Client(t)
	a, b := redistest.Unique(t), redistest.Unique(t)
	m := multilock.New([]multilock.Locker{reentrant.New(c, a), spin.New(c, b)})
	redistest.MustLock(t, m)
	if ok, err := reentrant.New(c, a).ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	err := m.Unlock(ctx)
	redistest.WantErr(t, err, multilock.ErrLost)
	if errors.Is(err, multilock.ErrNotHeld) {
		t.Fatalf("Unlock = %v; b was held", err)
	}
	redistest.AssertClean(t, c, a)
	redistest.AssertClean(t, c, b)
	redistest.WantErr(t, m.Unlock(ctx), multilock.ErrNotHeld)
}

// TestLock_on_cluster_with_locks_in_different_slots runs two callers over
// three locks that live on the three masters of a cluster, in opposite
// orders.
func TestLock_on_cluster_with_locks_in_different_slots(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	names := redistest.NamesOnDistinctMasters(t, cc, 3)
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
	if _, err := redistest.Hammer(ctx, []redistest.Locker{
		multilock.New([]multilock.Locker{reentrant.New(cc, names[0]), spin.New(cc, names[1]), reentrant.New(cc, names[2])}),
		multilock.New([]multilock.Locker{reentrant.New(cc, names[2]), spin.New(cc, names[1]), reentrant.New(cc, names[0])}),
	}, 30); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		redistest.AssertClean(t, cc, n)
	}
}
