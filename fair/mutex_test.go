package fair_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestLock_reenters_same_owner(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		m := fair.New(c, lockName(t, c))
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
		if err := m.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, fair.ErrNotHeld) {
			t.Fatalf("extra Unlock = %v, want ErrNotHeld", err)
		}
	})
}

func TestLock_reenters_at_once_while_others_queue(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		name := lockName(t, c)
		holder := fair.New(c, name)
		redistest.MustLock(t, holder)
		w := fair.New(c, name, fair.WithOwner("w"))
		got := lockAsync(redistest.Ctx(t, 20*time.Second), w)
		waitQueue(t, c, name, "w")

		// The holder re-enters past the queue, by Lock and by TryLock.
		redistest.MustLock(t, holder)
		if ok, err := holder.TryLock(redistest.Ctx(t, time.Second)); !ok || err != nil {
			t.Fatalf("TryLock by holder = %v, %v; want re-entry", ok, err)
		}
		redistest.WantHoldCount(t, holder, 3)
		wantQueue(t, c, name, "w")
		for range 3 {
			redistest.MustUnlock(t, holder)
		}
		if err := redistest.Receive(t, got, 10*time.Second, "the waiter"); err != nil {
			t.Fatalf("waiter: %v", err)
		}
		redistest.MustUnlock(t, w)
	})
}

func TestUnlock_other_owner_returns_ErrNotHeld(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		name := lockName(t, c)
		a, b := fair.New(c, name), fair.New(c, name)
		redistest.MustLock(t, a)
		if ok, err := b.TryLock(redistest.Ctx(t, time.Second)); ok || err != nil {
			t.Fatalf("TryLock by other owner = %v, %v; want false", ok, err)
		}
		err := b.Unlock(redistest.Ctx(t, time.Second))
		if !errors.Is(err, fair.ErrNotHeld) || errors.Is(err, fair.ErrLost) {
			t.Fatalf("Unlock by other owner = %v, want ErrNotHeld only", err)
		}
		redistest.WantHoldCount(t, a, 1)
		redistest.MustUnlock(t, a)
	})
}

func TestToken_strictly_increases_across_owners(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		name := lockName(t, c)
		var last int64
		for i := range 5 {
			m := fair.New(c, name)
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

func TestTryLock_does_not_jump_the_queue(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		name := lockName(t, c)
		ctx := redistest.Ctx(t, 10*time.Second)
		m := fair.New(c, name)

		// Held by another owner: fails, and does not queue.
		holder := fair.New(c, name)
		redistest.MustLock(t, holder)
		if ok, err := m.TryLock(ctx); ok || err != nil {
			t.Fatalf("TryLock on a held lock = %v, %v; want false", ok, err)
		}
		wantQueue(t, c, name)
		redistest.MustUnlock(t, holder)

		// Free, but someone waits: fails, and does not queue.
		deadline := addGhost(t, c, name, "ghost", time.Minute)
		if ok, err := m.TryLock(ctx); ok || err != nil {
			t.Fatalf("TryLock with a waiter queued = %v, %v; want false", ok, err)
		}
		wantQueue(t, c, name, "ghost")
		if locked, _ := m.IsLocked(ctx); locked {
			t.Fatal("failed TryLock left the lock held")
		}

		// The waiter's entry expires: TryLock evicts it and succeeds.
		if mr, ok := redistest.MiniFor(c); ok {
			mr.SetTime(time.UnixMilli(deadline + 1))
		} else {
			c.ZAdd(ctx, timeoutsKey(name), redis.Z{Score: float64(serverMillis(t, c) - 1), Member: "ghost"})
		}
		if ok, err := m.TryLock(ctx); !ok || err != nil {
			t.Fatalf("TryLock once the queue is empty = %v, %v; want true", ok, err)
		}
		wantQueue(t, c, name)
		redistest.MustUnlock(t, m)
	})
}

func TestLock_waits_for_release(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		name := lockName(t, c)
		a, b := fair.New(c, name), fair.New(c, name, fair.WithOwner("b"))
		redistest.MustLock(t, a)
		got := lockAsync(redistest.Ctx(t, 20*time.Second), b)
		waitQueue(t, c, name, "b")
		select {
		case err := <-got:
			t.Fatalf("Lock returned %v while another owner held the lock", err)
		default:
		}
		redistest.MustUnlock(t, a)
		if err := redistest.Receive(t, got, 10*time.Second, "the waiter"); err != nil {
			t.Fatalf("waiter Lock: %v", err)
		}
		if b.Token() <= 0 {
			t.Fatal("waiter holds no token")
		}
		wantQueue(t, c, name)
		redistest.MustUnlock(t, b)
	})
}

func TestForceUnlock_wakes_the_head(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		name := lockName(t, c)
		a, b := fair.New(c, name), fair.New(c, name, fair.WithOwner("b"))
		redistest.MustLock(t, a)
		redistest.MustLock(t, a)
		got := lockAsync(redistest.Ctx(t, 20*time.Second), b)
		waitQueue(t, c, name, "b")
		ok, err := fair.New(c, name).ForceUnlock(redistest.Ctx(t, time.Second))
		if !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
		}
		if err := redistest.Receive(t, got, 10*time.Second, "the waiter"); err != nil {
			t.Fatalf("waiter after ForceUnlock: %v", err)
		}
		if err := a.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, fair.ErrLost) {
			t.Fatalf("Unlock by force-unlocked owner = %v, want ErrLost", err)
		}
		redistest.MustUnlock(t, b)
		if ok, err := b.ForceUnlock(redistest.Ctx(t, time.Second)); ok || err != nil {
			t.Fatalf("ForceUnlock on a free lock = %v, %v; want false", ok, err)
		}
	})
}

func TestLease_fixed_expires_and_reports_ErrLost(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		name := lockName(t, c)
		const lease = 300 * time.Millisecond
		a := fair.New(c, name, fair.WithLease(lease))
		redistest.MustLock(t, a)
		if d, err := a.TTL(redistest.Ctx(t, time.Second)); err != nil || d <= 0 || d > lease {
			t.Fatalf("TTL = %v, %v; want within %v", d, err, lease)
		}
		b := fair.New(c, name)
		if mr, ok := redistest.MiniFor(c); ok {
			// miniredis TTLs do not count down by themselves.
			mr.FastForward(lease)
		}
		// b gets the lock although a never unlocks.
		if err := b.Lock(redistest.Ctx(t, lease+2*time.Second)); err != nil {
			t.Fatalf("Lock after the fixed lease: %v", err)
		}
		redistest.Receive(t, a.Lost(), 5*time.Second, "the lost signal of the expired hold")
		if err := a.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, fair.ErrLost) {
			t.Fatalf("Unlock after the lease ended = %v, want ErrLost", err)
		}
		// The late Unlock did not free b's newer hold.
		redistest.WantHoldCount(t, b, 1)
		redistest.MustUnlock(t, b)
	})
}

// TestUnlock_of_lost_hold_releases_it_if_it_lingers: a fixed lease ends by
// the owner's clock a little before it ends on the server; Unlock of such a
// hold reports ErrLost and still frees the lock for the next waiter.
func TestUnlock_of_lost_hold_releases_it_if_it_lingers(t *testing.T) {
	_, c := redistest.Mini(t) // its TTLs do not count down by themselves
	name := lockName(t, c)
	a := fair.New(c, name, fair.WithLease(100*time.Millisecond))
	b := fair.New(c, name, fair.WithOwner("b"))
	redistest.MustLock(t, a)
	got := lockAsync(redistest.Ctx(t, 20*time.Second), b)
	waitQueue(t, c, name, "b")
	redistest.Receive(t, a.Lost(), 5*time.Second, "the lease to end by the owner's clock")
	if err := a.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, fair.ErrLost) {
		t.Fatalf("Unlock of the lost hold = %v, want ErrLost", err)
	}
	if err := redistest.Receive(t, got, 10*time.Second, "the waiter"); err != nil {
		t.Fatalf("waiter Lock: %v", err)
	}
	redistest.MustUnlock(t, b)
}

func TestLost_fires_when_the_watchdog_finds_the_hold_gone(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	name := lockName(t, c)
	a := fair.New(c, name, fair.WithWatchdogTimeout(300*time.Millisecond))
	redistest.MustLock(t, a)
	if ok, err := fair.New(c, name).ForceUnlock(redistest.Ctx(t, time.Second)); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	redistest.Receive(t, a.Lost(), 5*time.Second, "the lost signal")
	err := a.Unlock(redistest.Ctx(t, time.Second))
	if !errors.Is(err, fair.ErrLost) || errors.Is(err, fair.ErrNotHeld) {
		t.Fatalf("Unlock after the hold vanished = %v, want ErrLost", err)
	}
	if err := a.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, fair.ErrNotHeld) {
		t.Fatalf("second Unlock = %v, want ErrNotHeld", err)
	}
}

func TestWatchdog_keeps_lock_while_others_wait(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	name := lockName(t, c)
	const lease = 300 * time.Millisecond
	a := fair.New(c, name, fair.WithWatchdogTimeout(lease))
	redistest.MustLock(t, a)
	// Another owner waits for more than three leases; it must not get the
	// lock, and its entry must be gone when its Lock returns.
	ctx, cancel := context.WithTimeout(context.Background(), 4*lease)
	defer cancel()
	err := fair.New(c, name).Lock(ctx)
	if !errors.Is(err, fair.ErrNotObtained) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("other owner Lock = %v; want ErrNotObtained and DeadlineExceeded", err)
	}
	wantQueue(t, c, name)
	select {
	case <-a.Lost():
		t.Fatal("hold reported lost")
	default:
	}
	redistest.WantHoldCount(t, a, 1)
	redistest.MustUnlock(t, a)
}

func TestWithOwner_shares_hold(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		name := lockName(t, c)
		a := fair.New(c, name, fair.WithOwner("job-7"))
		b := fair.New(c, name, fair.WithOwner("job-7"))
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

func TestUnlock_retry_after_lost_reply(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		hook := &redistest.DropReply{Match: isRelease}
		c.AddHook(hook)
		name := lockName(t, c)
		m := fair.New(c, name)
		redistest.MustLock(t, m)
		redistest.MustLock(t, m)

		// A partial unlock whose reply is lost, then retried: one unlock.
		hook.Arm()
		if err := m.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("Unlock with lost reply = %v", err)
		}
		redistest.MustUnlock(t, m)
		redistest.WantHoldCount(t, m, 1)

		// The final unlock's reply is lost, then retried: no false error.
		hook.Arm()
		if err := m.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("Unlock with lost reply = %v", err)
		}
		// Meanwhile someone else takes the lock; the retry must not free it.
		other := fair.New(c, name)
		redistest.MustLock(t, other)
		redistest.MustUnlock(t, m)
		if err := m.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, fair.ErrNotHeld) {
			t.Fatalf("Unlock after the retry settled = %v, want ErrNotHeld", err)
		}
		redistest.WantHoldCount(t, other, 1)
		redistest.MustUnlock(t, other)
	})
}

func TestNew_rejects_bad_input(t *testing.T) {
	_, c := redistest.Mini(t)
	counter := redistest.CountCommands(c)
	var typedNil *redis.Client
	cases := []struct {
		name   string
		client redis.UniversalClient
		lock   string
		opts   []fair.Option
		want   string
	}{
		{"nil client", nil, "a", nil, "client must not be nil"},
		{"typed nil client", typedNil, "a", nil, "client must not be nil"},
		{"empty name", c, "", nil, "lock name must not be empty"},
		{"nil option", c, "a", []fair.Option{nil}, "nil Option"},
		{"zero lease", c, "a", []fair.Option{fair.WithLease(0)}, "WithLease"},
		{"negative lease", c, "a", []fair.Option{fair.WithLease(-time.Second)}, "WithLease"},
		{"zero watchdog timeout", c, "a", []fair.Option{fair.WithWatchdogTimeout(0)}, "WithWatchdogTimeout"},
		{"negative watchdog timeout", c, "a", []fair.Option{fair.WithWatchdogTimeout(-1)}, "WithWatchdogTimeout"},
		{"empty owner", c, "a", []fair.Option{fair.WithOwner("")}, "WithOwner"},
		{"reserved owner", c, "a", []fair.Option{fair.WithOwner(":token")}, "WithOwner"},
		{"empty prefix", c, "a", []fair.Option{fair.WithPrefix("")}, "WithPrefix"},
		{"prefix with brace", c, "a", []fair.Option{fair.WithPrefix("a{b")}, "WithPrefix"},
		{"zero waiter timeout", c, "a", []fair.Option{fair.WithWaiterTimeout(0)}, "WithWaiterTimeout"},
		{"negative waiter timeout", c, "a", []fair.Option{fair.WithWaiterTimeout(-time.Second)}, "WithWaiterTimeout"},
		{"tiny waiter timeout", c, "a", []fair.Option{fair.WithWaiterTimeout(time.Millisecond)}, "WithWaiterTimeout"},
		{"first bad option reported", c, "a", []fair.Option{fair.WithWaiterTimeout(0), fair.WithLease(0)}, "WithWaiterTimeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := fair.New(tc.client, tc.lock, tc.opts...)
			ctx := redistest.Ctx(t, time.Second)
			_, tryErr := m.TryLock(ctx)
			_, forceErr := m.ForceUnlock(ctx)
			_, lockedErr := m.IsLocked(ctx)
			_, countErr := m.HoldCount(ctx)
			_, ttlErr := m.TTL(ctx)
			for i, err := range []error{m.Lock(ctx), tryErr, m.Unlock(ctx), forceErr, lockedErr, countErr, ttlErr} {
				if !errors.Is(err, fair.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("method %d: err = %v; want ErrInvalid mentioning %q", i, err, tc.want)
				}
			}
			if m.Token() != 0 || m.Lost() != nil {
				t.Fatal("invalid mutex reports a hold")
			}
		})
	}
	if n := counter.Total(); n != 0 {
		t.Fatalf("%d commands sent for invalid input", n)
	}
}
