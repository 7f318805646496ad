package multilock_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
)

// Every exclusive lock of the module is a Locker a Mutex can take.
var (
	_ lockkit.Locker = (*reentrant.Mutex)(nil)
	_ lockkit.Locker = (*spin.Mutex)(nil)
	_ lockkit.Locker = (*multilock.RedLock)(nil)
	_ lockkit.Locker = (*multilock.Mutex)(nil)
)

func TestNew_invalid_arguments_return_ErrInvalid(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc)
	a := reentrant.New(c, "a")
	var typedNil *reentrant.Mutex
	cases := []struct {
		name  string
		locks []lockkit.Locker
		opts  []lockkit.Option
	}{
		{"no locks", nil, nil},
		{"nil lock", []lockkit.Locker{a, nil}, nil},
		{"typed nil lock", []lockkit.Locker{a, typedNil}, nil},
		{"same value twice", []lockkit.Locker{a, reentrant.New(c, "b"), a}, nil},
		{"zero lock wait", []lockkit.Locker{a}, []lockkit.Option{multilock.WithLockWait(0)}},
		{"nil option", []lockkit.Locker{a}, []lockkit.Option{nil}},
		{"option of another kind", []lockkit.Locker{a}, []lockkit.Option{lockkit.WithLease(time.Second)}},
		{"RedLock option", []lockkit.Locker{a}, []lockkit.Option{multilock.WithNodeTimeout(time.Second)}},
		{"invalid member", []lockkit.Locker{reentrant.New(c, "")}, nil},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := multilock.New(tc.locks, tc.opts...)
			redistest.WantErr(t, m.Lock(ctx), lockkit.ErrInvalid)
			_, err := m.TryLock(ctx)
			redistest.WantErr(t, err, lockkit.ErrInvalid)
			redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrInvalid)
		})
	}
	var zero multilock.Mutex
	redistest.WantErr(t, zero.Lock(ctx), lockkit.ErrInvalid)
	var nilMutex *multilock.Mutex
	redistest.WantErr(t, nilMutex.Unlock(ctx), lockkit.ErrInvalid)
}

func TestNew_orders_locks_by_name(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc)
	b, a, d := reentrant.New(c, "b"), spin.New(c, "a"), reentrant.New(c, "d")
	m := multilock.New([]lockkit.Locker{b, d, a})
	if got, want := m.Locks(), []lockkit.Locker{a, b, d}; !slices.Equal(got, want) {
		t.Fatalf("Locks() = %v, want %v", got, want)
	}
	if m.Name() != "a+b+d" {
		t.Fatalf("Name() = %q", m.Name())
	}
}

// TestNew_flattens_nested_multilocks checks that a Mutex member is replaced
// by its locks: ordered by its joined name "a+z" it would be taken before
// "m" while a caller of {m, z} takes m before z, and the two could
// deadlock.
func TestNew_flattens_nested_multilocks(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc)
	a, z, m := reentrant.New(c, "a"), reentrant.New(c, "z"), spin.New(c, "m")
	inner := multilock.New([]lockkit.Locker{z, a})
	outer := multilock.New([]lockkit.Locker{inner, m})
	if got, want := outer.Locks(), []lockkit.Locker{a, m, z}; !slices.Equal(got, want) {
		t.Fatalf("Locks() = %v, want %v", got, want)
	}
	dup := multilock.New([]lockkit.Locker{inner, a})
	redistest.WantErr(t, dup.Lock(context.Background()), lockkit.ErrInvalid)
	bad := multilock.New([]lockkit.Locker{multilock.New(nil), m})
	redistest.WantErr(t, bad.Lock(context.Background()), lockkit.ErrInvalid)
}

func TestLock_takes_every_lock_and_Unlock_frees_them(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, redistest.Hang)
		c := redistest.Lockkit(t, rc)
		names := []string{redistest.Unique(t), redistest.Unique(t), redistest.Unique(t)}
		// Each name is one kind's.
		kinds := []func(c *lockkit.Client, name string) *reentrant.Mutex{
			func(c *lockkit.Client, n string) *reentrant.Mutex { return reentrant.New(c, n) },
			func(c *lockkit.Client, n string) *reentrant.Mutex { return spin.New(c, n) },
			func(c *lockkit.Client, n string) *reentrant.Mutex { return reentrant.New(c, n) },
		}
		var locks []lockkit.Locker
		for i, n := range names {
			locks = append(locks, kinds[i](c, n))
		}
		m := multilock.New(locks)
		redistest.MustLock(t, m)
		for i, n := range names {
			if ok, err := kinds[i](c, n).TryLock(ctx); ok || err != nil {
				t.Fatalf("%s: another owner's TryLock = %v, %v while the Mutex holds it", n, ok, err)
			}
		}
		redistest.MustUnlock(t, m)
		for _, n := range names {
			redistest.AssertClean(t, rc, n)
		}
		if ok, err := m.TryLock(ctx); !ok || err != nil {
			t.Fatalf("TryLock of free locks = %v, %v", ok, err)
		}
		redistest.MustUnlock(t, m)
		for _, n := range names {
			redistest.AssertClean(t, rc, n)
		}
	})
}

// TestLock_opposite_orders_never_deadlock has two callers lock the same two
// locks, on two servers, given in opposite orders, 100 times each. Taken in
// the given order they would deadlock within a few rounds (each holding one
// and waiting for the other until ctx ends).
func TestLock_opposite_orders_never_deadlock(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 2)
	c := lockkits(t, clients)
	a, b := redistest.Unique(t), redistest.Unique(t)
	rounds, err := redistest.Hammer(ctx, []redistest.Locker{
		multilock.New([]lockkit.Locker{reentrant.New(c[0], a), reentrant.New(c[1], b)}),
		multilock.New([]lockkit.Locker{reentrant.New(c[1], b), reentrant.New(c[0], a)}),
	}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if rounds != 200 {
		t.Fatalf("%d rounds, want 200", rounds)
	}
	redistest.AssertClean(t, clients[0], a)
	redistest.AssertClean(t, clients[1], b)
}

// TestLock_same_name_locks_are_tried_not_waited_on has two callers lock two
// distinct locks with the same name (on two servers) in opposite orders:
// their order cannot be fixed by name, so they are only ever tried.
func TestLock_same_name_locks_are_tried_not_waited_on(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 2)
	c := lockkits(t, clients)
	name := redistest.Unique(t)
	if _, err := redistest.Hammer(ctx, []redistest.Locker{
		multilock.New([]lockkit.Locker{spin.New(c[0], name), spin.New(c[1], name)}),
		multilock.New([]lockkit.Locker{spin.New(c[1], name), spin.New(c[0], name)}),
	}, 50); err != nil {
		t.Fatal(err)
	}
	redistest.AssertClean(t, clients[0], name)
	redistest.AssertClean(t, clients[1], name)
}

// TestLock_partial_acquisition_is_rolled_back locks {a, b} while another
// owner holds b: a is taken first (names sort so) and must be released
// again, by Lock when its ctx ends, by TryLock at once, and by every round
// that WithLockWait cuts short.
func TestLock_partial_acquisition_is_rolled_back(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	s := redistest.StartServer(t)
	rc, rca := s.Client(t), s.Client(t)
	counter := redistest.CountCommands(rca)
	c, ca := redistest.Lockkit(t, rc), redistest.Lockkit(t, rca)
	a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
	other := reentrant.New(c, b)
	redistest.MustLock(t, other)
	memberA := reentrant.New(ca, a)
	m := multilock.New([]lockkit.Locker{reentrant.New(c, b), memberA})

	redistest.WantErr(t, m.Lock(redistest.Ctx(t, 200*time.Millisecond)), lockkit.ErrNotObtained, context.DeadlineExceeded)
	if counter.Scripts() < 2 {
		t.Fatalf("a saw %d scripts; want it taken and released", counter.Scripts())
	}
	givenBack(t, rc, a)
	redistest.WantHoldCount(t, memberA, 0)

	if ok, err := m.TryLock(ctx); ok || err != nil {
		t.Fatalf("TryLock = %v, %v; want false, nil", ok, err)
	}
	redistest.AssertClean(t, rc, a)

	// With a bound on each wait, Lock gives up on b and starts over.
	counter.Reset()
	m = multilock.New([]lockkit.Locker{reentrant.New(c, b), memberA}, multilock.WithLockWait(20*time.Millisecond))
	err := m.Lock(redistest.Ctx(t, time.Second))
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	if rounds := counter.Scripts() / 2; rounds < 2 {
		t.Fatalf("a was taken and released %d times; want several rounds", rounds)
	}
	givenBack(t, rc, a)

	// Once b is free, Lock gets both.
	redistest.MustUnlock(t, other)
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
	redistest.AssertClean(t, rc, a)
	redistest.AssertClean(t, rc, b)
}

// TestLock_starts_over_after_a_lock_fails takes {a, b} with b on a server
// that is down: each round takes a, fails on b and releases a, until the
// server is back.
func TestLock_starts_over_after_a_lock_fails(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	servers := redistest.StartMasters(t, 2)
	rc1 := servers[0].Client(t)
	// No client-side retries, so each round fails fast.
	rc2 := redis.NewClient(&redis.Options{Addr: servers[1].Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rc2.Close() })
	counter := redistest.CountCommands(rc2)
	c1, c2 := redistest.Lockkit(t, rc1), redistest.Lockkit(t, rc2)
	a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
	m := multilock.New([]lockkit.Locker{reentrant.New(c1, a), reentrant.New(c2, b)})
	servers[1].Kill(t)

	done := redistest.LockAsync(ctx, m)
	keepsTrying(t, done, counter, 3, "b's server is down")
	servers[1].Restart(t)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, m)
	redistest.AssertClean(t, rc1, a)
	redistest.AssertClean(t, rc2, b)

	// With ctx ending while b's server is down, the error says why.
	servers[1].Kill(t)
	err := m.Lock(redistest.Ctx(t, 1500*time.Millisecond))
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	if !strings.Contains(err.Error(), "last failure") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error %q does not give the last failure", err)
	}
	redistest.AssertClean(t, rc1, a)
}

func TestUnlock_joins_errors_and_frees_the_rest(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	rc := redistest.StartServer(t).Client(t)
	c := redistest.Lockkit(t, rc)
	a, b := redistest.Unique(t), redistest.Unique(t)
	m := multilock.New([]lockkit.Locker{reentrant.New(c, a), spin.New(c, b)})
	redistest.MustLock(t, m)
	if ok, err := reentrant.New(c, a).ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	err := m.Unlock(ctx)
	redistest.WantErr(t, err, lockkit.ErrLost)
	if errors.Is(err, lockkit.ErrNotHeld) {
		t.Fatalf("Unlock = %v; b was held", err)
	}
	redistest.AssertClean(t, rc, a)
	redistest.AssertClean(t, rc, b)
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
}

// TestLock_on_cluster_with_locks_in_different_slots runs two callers over
// three locks that live on the three masters of a cluster, in opposite
// orders.
func TestLock_on_cluster_with_locks_in_different_slots(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	cc := redistest.StartCluster(t).Client(t)
	c := redistest.Lockkit(t, cc)
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
		multilock.New([]lockkit.Locker{reentrant.New(c, names[0]), spin.New(c, names[1]), reentrant.New(c, names[2])}),
		multilock.New([]lockkit.Locker{reentrant.New(c, names[2]), spin.New(c, names[1]), reentrant.New(c, names[0])}),
	}, 30); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		redistest.AssertClean(t, cc, n)
	}
}

// kind builds one caller's Locker for a named lock.
type kind struct {
	name    string
	clients []redis.UniversalClient // where its keys live
	new     func(name string) lockkit.Locker
}

// mixedKinds returns the lock kinds the mixed test combines, each on its
// own server or servers.
func mixedKinds(t *testing.T) []kind {
	servers := redistest.StartMasters(t, 5)
	var clients []redis.UniversalClient
	for _, s := range servers {
		clients = append(clients, s.Client(t))
	}
	lcs := lockkits(t, clients)
	red := lcs[2:]
	return []kind{
		{"reentrant", clients[:1], func(n string) lockkit.Locker { return reentrant.New(lcs[0], n) }},
		{"spin", clients[1:2], func(n string) lockkit.Locker { return spin.New(lcs[1], n) }},
		{"redlock", clients[2:], func(n string) lockkit.Locker { return multilock.NewRedLock(red, n) }},
	}
}

// TestLock_mixed_kinds_in_opposite_orders has two callers take one lock of
// every kind, given in opposite orders, 30 times each.
func TestLock_mixed_kinds_in_opposite_orders(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	kinds := mixedKinds(t)
	names := make([]string, len(kinds))
	for i := range kinds {
		names[i] = redistest.Unique(t)
	}
	caller := func(reverse bool) redistest.Locker {
		var locks []lockkit.Locker
		for i, k := range kinds {
			locks = append(locks, k.new(names[i]))
		}
		if reverse {
			slices.Reverse(locks)
		}
		return multilock.New(locks)
	}
	rounds, err := redistest.Hammer(ctx, []redistest.Locker{caller(false), caller(true)}, 30)
	if err != nil {
		t.Fatal(err)
	}
	if rounds != 60 {
		t.Fatalf("%d rounds, want 60", rounds)
	}
	for i, k := range kinds {
		assertCleanAll(t, k.clients, names[i])
	}
}

// BenchmarkMutex_uncontended locks and unlocks a Mutex of n free reentrant
// locks on one server: n acquires and n releases.
func BenchmarkMutex_uncontended(b *testing.B) {
	s := redistest.StartServer(b)
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("locks=%d", n), func(b *testing.B) {
			rc := s.Client(b)
			counter := redistest.CountCommands(rc)
			c := redistest.Lockkit(b, rc)
			var locks []lockkit.Locker
			for range n {
				locks = append(locks, reentrant.New(c, redistest.Unique(b)))
			}
			redistest.BenchLockUnlock(b, multilock.New(locks), counter)
		})
	}
}

// TestLock_returns_within_ctx_when_a_member_is_down cuts the network to
// the server of one of two members, whose go-redis client would wait a
// minute for a reply: Lock and TryLock still fail within their ctx, and
// give back the member they took.
func TestLock_returns_within_ctx_when_a_member_is_down(t *testing.T) {
	servers, clients := masters(t, 2)
	p := redistest.StartProxy(t, servers[1].Addr())
	slow := redis.NewClient(&redis.Options{Addr: p.Addr(), DialTimeout: time.Minute, ReadTimeout: time.Minute, WriteTimeout: time.Minute})
	t.Cleanup(func() { _ = slow.Close() })
	name := redistest.Unique(t)
	m := multilock.New([]lockkit.Locker{reentrant.New(redistest.Lockkit(t, clients[0]), name), reentrant.New(redistest.Lockkit(t, slow), name)})
	openConnections(t, m)
	p.Cut()
	defer p.Heal() // lets the requests left behind finish before the Clients close
	for _, tt := range lockCalls(m) {
		done := make(chan error, 1)
		go func() { done <- tt.call(redistest.Ctx(t, 300*time.Millisecond)) }()
		if err := redistest.Receive(t, done, redistest.Hang, tt.what+" with a member cut off"); err == nil {
			t.Fatalf("%s with a member cut off = nil; want an error", tt.what)
		}
		redistest.Eventually(t, redistest.Hang, "the member taken to be given back", func() bool {
			n, err := clients[0].Exists(context.Background(), lockKey(name)).Result()
			return err == nil && n == 0
		})
	}
}

// TestLock_returns_at_once_on_an_error_another_round_cannot_cure: a member
// whose name another kind uses (ErrWrongKind), whose Client is closed
// (ErrClosed), that was made with invalid arguments (ErrInvalid) or that
// would upgrade its owner's read hold (ErrUpgrade: rwlock's write side) fails
// every round alike, so Lock returns its error long before its ctx ends,
// TryLock returns it too, and the member taken before it is given back.
func TestLock_returns_at_once_on_an_error_another_round_cannot_cure(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	c := redistest.Lockkit(t, rc)
	closed := redistest.Lockkit(t, redistest.StartServer(t).Client(t))
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want error
		b    func(name string) lockkit.Locker // the member taken second
	}{
		{"another kind's name", lockkit.ErrWrongKind, func(name string) lockkit.Locker {
			redistest.MustLock(t, spin.New(c, name))
			return reentrant.New(c, name)
		}},
		{"closed Client", lockkit.ErrClosed, func(name string) lockkit.Locker { return reentrant.New(closed, name) }},
		{"invalid member", lockkit.ErrInvalid, func(name string) lockkit.Locker {
			return reentrant.New(c, name, lockkit.WithLease(time.Microsecond))
		}},
		{"upgrade of the owner's read hold", lockkit.ErrUpgrade, func(name string) lockkit.Locker {
			rw := rwlock.New(c, name)
			if err := rw.RLock(context.Background()); err != nil {
				t.Fatal(err)
			}
			return rw
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
			m := multilock.New([]lockkit.Locker{tc.b(b), reentrant.New(c, a)})
			err := m.Lock(redistest.Ctx(t, redistest.Hang))
			redistest.WantErr(t, err, tc.want)
			if errors.Is(err, lockkit.ErrNotObtained) {
				t.Fatalf("Lock = %v; want the member's error, not a wait that ran out", err)
			}
			redistest.AssertClean(t, rc, a)
			ok, err := m.TryLock(redistest.Ctx(t, redistest.Hang))
			if ok {
				t.Fatal("TryLock succeeded")
			}
			redistest.WantErr(t, err, tc.want)
			redistest.AssertClean(t, rc, a)
		})
	}
}

// TestUnlock_a_silent_member_does_not_hold_up_the_others: while the
// release of one member gets no answer, the others are released already
// (Unlock releases every member at once, not one after another); once the
// answer comes, Unlock returns nil.
func TestUnlock_a_silent_member_does_not_hold_up_the_others(t *testing.T) {
	rc, c, cB, silent := silentReleases(t)
	defer silent.Off()
	// b is taken last, so a release last first would wait for it before a.
	a, b, m := lockedPair(t, c, cB)

	silent.On()
	done := make(chan error, 1)
	go func() { done <- m.Unlock(redistest.Ctx(t, redistest.Hang)) }()
	redistest.Eventually(t, redistest.Hang, "a to be released while b's release waits", func() bool {
		n, err := rc.Exists(context.Background(), lockKey(a)).Result()
		return err == nil && n == 0
	})
	select {
	case err := <-done:
		t.Fatalf("Unlock returned %v while b's release got no answer", err)
	default:
	}
	silent.Off()
	if err := redistest.Receive(t, done, redistest.Hang, "Unlock"); err != nil {
		t.Fatalf("Unlock = %v", err)
	}
	redistest.AssertClean(t, rc, a)
	redistest.AssertClean(t, rc, b)
}

// TestLock_failed_give_back_is_returned_at_once_and_settled_by_the_member:
// when a round fails and the release of a member it took gets no reply,
// the member may still be held, so Lock and TryLock return at once with an
// error naming it instead of starting over, and the member's own Unlock
// settles it.
func TestLock_failed_give_back_is_returned_at_once_and_settled_by_the_member(t *testing.T) {
	rc, c, cA, drop := droppedReleases(t)
	a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
	other := reentrant.New(c, b)
	redistest.MustLock(t, other)
	memberA := reentrant.New(cA, a)
	// b is busy: each round takes a, waits at most 20 ms for b and gives a
	// back.
	m := multilock.New([]lockkit.Locker{reentrant.New(c, b), memberA}, multilock.WithLockWait(20*time.Millisecond))
	for _, tt := range lockCalls(m) {
		drop.Arm()
		err := tt.call(redistest.Ctx(t, redistest.Hang))
		if err == nil || errors.Is(err, lockkit.ErrNotObtained) || !strings.Contains(err.Error(), fmt.Sprintf("%q may still be held", a)) {
			t.Fatalf("%s whose give-back of a got no reply = %v; want an error naming a", tt.what, err)
		}
		if drop.Armed() {
			t.Fatalf("%s did not give a back", tt.what)
		}
		redistest.MustUnlock(t, memberA) // settles the release whose reply was lost
		redistest.AssertClean(t, rc, a)
	}
	redistest.MustUnlock(t, other)
}

// TestOptions_apply_to_their_kind_only: WithLockWait is a Mutex's and
// WithDriftFactor and WithNodeTimeout a RedLock's; given to another kind
// of lock or as a Client default, each is refused with ErrInvalid naming
// it.
func TestOptions_apply_to_their_kind_only(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc)
	ctx := redistest.Ctx(t, redistest.Hang)
	for _, tc := range []struct {
		name string
		opt  lockkit.Option
	}{
		{"WithLockWait", multilock.WithLockWait(time.Second)},
		{"WithDriftFactor", multilock.WithDriftFactor(0.1)},
		{"WithNodeTimeout", multilock.WithNodeTimeout(time.Second)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redistest.WantInvalid(t, "a Client's Err", lockkit.New(rc, tc.opt).Err(), tc.name)
			redistest.WantInvalid(t, "Lock", reentrant.New(c, redistest.Unique(t), tc.opt).Lock(ctx), tc.name)
		})
	}
	redistest.WantInvalid(t, "Lock", multilock.New([]lockkit.Locker{reentrant.New(c, "a")}, multilock.WithDriftFactor(0.1)).Lock(ctx), "WithDriftFactor")
}

// TestLock_Client_closed_while_waiting_gives_back_and_returns_ErrClosed:
// Lock holds a and waits for b, which another owner holds; when b's
// Client is closed, Lock returns ErrClosed at once and gives a back.
func TestLock_Client_closed_while_waiting_gives_back_and_returns_ErrClosed(t *testing.T) {
	s := redistest.StartServer(t)
	rc := s.Client(t)
	c, cB := redistest.Lockkit(t, rc), redistest.Lockkit(t, s.Client(t))
	a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
	other := reentrant.New(c, b)
	redistest.MustLock(t, other)
	m := multilock.New([]lockkit.Locker{reentrant.New(cB, b), reentrant.New(c, a)})
	done := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), m)
	redistest.Eventually(t, redistest.Hang, "Lock to take a and wait for b", func() bool {
		n, err := rc.Exists(context.Background(), lockKey(a)).Result()
		return err == nil && n == 1
	})
	if err := cB.Close(); err != nil {
		t.Fatal(err)
	}
	err := redistest.Receive(t, done, redistest.Hang, "Lock after b's Client closed")
	redistest.WantErr(t, err, lockkit.ErrClosed)
	if errors.Is(err, lockkit.ErrNotObtained) {
		t.Fatalf("Lock = %v; want ErrClosed, not a wait that ran out", err)
	}
	redistest.AssertClean(t, rc, a)
	redistest.MustUnlock(t, other)
}

// TestLock_give_back_waits_CleanupTimeout_in_all_however_many_members_are_silent:
// when a round fails and the server does not answer the releases of the
// three members it took, Lock and TryLock return after one
// core.CleanupTimeout, not one per member (the members are given back all
// at once, on one bounded context), with an error naming each member.
func TestLock_give_back_waits_CleanupTimeout_in_all_however_many_members_are_silent(t *testing.T) {
	g := newGiveBackScene(t)
	defer g.silent.Off()
	other := reentrant.New(g.c, g.busy)
	redistest.MustLock(t, other)
	// d is busy: each round takes a, b and c, waits at most 20 ms for d
	// and gives them back.
	m := multilock.New(g.after(reentrant.New(g.cS, g.busy)), multilock.WithLockWait(20*time.Millisecond))
	for _, tt := range lockCalls(m) {
		g.silent.On()
		start := time.Now()
		err := tt.call(redistest.Ctx(t, redistest.Hang))
		took := time.Since(start)
		// One bound for the three releases; one after another they took
		// three (the bound is loose, against a loaded machine).
		if took >= 2*core.CleanupTimeout {
			t.Errorf("%s whose give-back got no reply took %v; want less than %v", tt.what, took, 2*core.CleanupTimeout)
		}
		wantMayStillBeHeld(t, tt.what, err, g.names)
		g.settle(t)
	}
	redistest.MustUnlock(t, other)
}
