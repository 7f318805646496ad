package rwlock_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// The write side's exclusive-lock contract (re-entry, ErrNotHeld, tokens,
// leases, loss, WithOwner, retried Unlock, bad input, ctx deadlines) is
// tested by the conformance suite; the tests here are the read side's and
// what ties the two sides together.

func TestRLock_readers_share_writer_excludes(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		a, b, w := rwlock.New(lc, name), rwlock.New(lc, name), rwlock.New(lc, name)
		mustRLock(t, a)
		mustRLock(t, b)
		wantState(t, a, rwlock.ReadLocked, 2, 0, 1)
		if tryLock(t, w) {
			t.Fatal("TryLock succeeded while two readers hold the lock")
		}
		mustRUnlock(t, a)
		if tryLock(t, w) {
			t.Fatal("TryLock succeeded while a reader holds the lock")
		}
		mustRUnlock(t, b)
		if !tryLock(t, w) {
			t.Fatal("TryLock failed on a free lock")
		}
		wantState(t, w, rwlock.WriteLocked, 0, 1, 0)
		if tryRLock(t, a) {
			t.Fatal("TryRLock succeeded while a writer holds the lock")
		}
		if tryLock(t, b) {
			t.Fatal("a second writer got the lock")
		}
		redistest.MustUnlock(t, w)
		wantState(t, w, rwlock.Unlocked, 0, 0, 0)
		redistest.AssertClean(t, c, name)
	})
}

func TestRLock_reenters_with_counts(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		r := rwlock.New(lc, name)
		mustRLock(t, r)
		tok := r.RToken()
		mustRLock(t, r)
		if !tryRLock(t, r) {
			t.Fatal("TryRLock by a reader did not re-enter")
		}
		wantState(t, r, rwlock.ReadLocked, 1, 0, 3)
		if r.RToken() != tok {
			t.Fatalf("read re-entry changed the token %d -> %d", tok, r.RToken())
		}
		mustRUnlock(t, r)
		mustRUnlock(t, r)
		wantState(t, r, rwlock.ReadLocked, 1, 0, 1)
		mustRUnlock(t, r)
		wantState(t, r, rwlock.Unlocked, 0, 0, 0)
		if r.RToken() != 0 {
			t.Fatalf("RToken after release = %d, want 0", r.RToken())
		}
	})
}

func TestUnlock_downgrades_to_read(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		w, other, reader := rwlock.New(lc, name), rwlock.New(lc, name), rwlock.New(lc, name)
		redistest.MustLock(t, w)
		mustRLock(t, w) // the writer may read
		wantState(t, w, rwlock.WriteLocked, 1, 1, 1)
		if tryRLock(t, reader) {
			t.Fatal("another owner read while the downgrading writer still writes")
		}
		if w.RToken() <= w.Token() {
			t.Fatalf("the writer's read hold token %d is not a fresh one above %d", w.RToken(), w.Token())
		}
		redistest.MustUnlock(t, w)
		wantState(t, w, rwlock.ReadLocked, 1, 0, 1)
		if w.Token() != 0 || w.RToken() == 0 {
			t.Fatalf("after downgrade Token = %d, RToken = %d; want 0 and the read token", w.Token(), w.RToken())
		}
		if tryLock(t, other) {
			t.Fatal("another writer got the lock while the downgraded owner reads")
		}
		if !tryRLock(t, reader) {
			t.Fatal("another reader was refused after the downgrade")
		}
		mustRUnlock(t, reader)
		mustRUnlock(t, w)
		if !tryLock(t, other) {
			t.Fatal("writer refused after the downgraded reader left")
		}
		redistest.MustUnlock(t, other)
	})
}

func TestLock_by_reader_returns_ErrUpgrade_at_once(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		r, other := rwlock.New(lc, name), rwlock.New(lc, name)
		mustRLock(t, r)
		mustRLock(t, other)
		// No deadline: a Lock that waited would hang the test, not time out.
		err := redistest.Receive(t, async(t, func() error { return r.Lock(t.Context()) }), waitTimeout, "Lock by a reader")
		if !errors.Is(err, lockkit.ErrUpgrade) || !strings.Contains(err.Error(), name) {
			t.Fatalf("Lock by a reader = %v, want ErrUpgrade naming the lock", err)
		}
		if ok, err := r.TryLock(redistest.Ctx(t, waitTimeout)); ok || !errors.Is(err, lockkit.ErrUpgrade) {
			t.Fatalf("TryLock by a reader = %v, %v; want false, ErrUpgrade", ok, err)
		}
		// Nothing changed, and no intent holds readers back.
		s := state(t, r)
		if s.Mode != rwlock.ReadLocked || s.Readers != 2 || s.RHoldCount != 1 || s.HoldCount != 0 || s.WaitingWriters != 0 {
			t.Fatalf("state after refused upgrade = %+v", s)
		}
		newcomer := rwlock.New(lc, name)
		if !tryRLock(t, newcomer) {
			t.Fatal("a new reader was held back after a refused upgrade")
		}
		mustRUnlock(t, newcomer)
		mustRUnlock(t, r)
		mustRUnlock(t, other)
		redistest.MustLock(t, r) // no longer a reader: allowed
		redistest.MustUnlock(t, r)
	})
}

func TestRUnlock_not_held_returns_ErrNotHeld(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		a, b := rwlock.New(lc, name), rwlock.New(lc, name)
		ctx := redistest.Ctx(t, waitTimeout)
		if err := a.RUnlock(ctx); !errors.Is(err, lockkit.ErrNotHeld) || errors.Is(err, lockkit.ErrLost) {
			t.Fatalf("RUnlock of a fresh owner = %v, want ErrNotHeld only", err)
		}
		mustRLock(t, a)
		if err := a.Unlock(ctx); !errors.Is(err, lockkit.ErrNotHeld) {
			t.Fatalf("Unlock by a reader = %v, want ErrNotHeld", err)
		}
		if err := b.RUnlock(ctx); !errors.Is(err, lockkit.ErrNotHeld) {
			t.Fatalf("RUnlock by another owner = %v, want ErrNotHeld", err)
		}
		wantState(t, a, rwlock.ReadLocked, 1, 0, 1)
		mustRUnlock(t, a)
		if err := a.RUnlock(ctx); !errors.Is(err, lockkit.ErrNotHeld) {
			t.Fatalf("extra RUnlock = %v, want ErrNotHeld", err)
		}
		redistest.MustLock(t, b)
		if err := b.RUnlock(ctx); !errors.Is(err, lockkit.ErrNotHeld) {
			t.Fatalf("RUnlock by the writer = %v, want ErrNotHeld", err)
		}
		wantState(t, b, rwlock.WriteLocked, 0, 1, 0)
		redistest.MustUnlock(t, b)
	})
}

func TestForceUnlock_loses_read_holds_with_ErrLost(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		r1 := rwlock.New(lc, name, lockkit.WithWatchdogTimeout(300*time.Millisecond))
		r2 := rwlock.New(lc, name)
		admin := rwlock.New(lc, name)
		mustRLock(t, r1)
		mustRLock(t, r2)
		if ok, err := admin.ForceUnlock(redistest.Ctx(t, waitTimeout)); !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
		}
		wantState(t, admin, rwlock.Unlocked, 0, 0, 0)
		// r1's watchdog renews every 100 ms and finds its hold gone.
		redistest.Receive(t, r1.RLost(), waitTimeout, "RLost to fire after the read hold was removed")
		for _, r := range []*rwlock.RWMutex{r1, r2} {
			if err := r.RUnlock(redistest.Ctx(t, waitTimeout)); !errors.Is(err, lockkit.ErrLost) {
				t.Fatalf("RUnlock after ForceUnlock = %v, want ErrLost", err)
			}
			if err := r.RUnlock(redistest.Ctx(t, waitTimeout)); !errors.Is(err, lockkit.ErrNotHeld) {
				t.Fatalf("second RUnlock = %v, want ErrNotHeld", err)
			}
		}
		if ok, err := admin.ForceUnlock(redistest.Ctx(t, waitTimeout)); ok || err != nil {
			t.Fatalf("ForceUnlock of a free lock = %v, %v; want false", ok, err)
		}
	})
}

func TestRUnlock_late_release_cannot_end_newer_hold(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		// Two values sharing an owner id: b's old read hold is replaced by
		// a's fresh one after a force unlock, and b's release must not end
		// it.
		a := rwlock.New(lc, name, lockkit.WithOwner("job-1"))
		b := rwlock.New(lc, name, lockkit.WithOwner("job-1"))
		admin := rwlock.New(lc, name)
		mustRLock(t, b)
		if _, err := admin.ForceUnlock(redistest.Ctx(t, waitTimeout)); err != nil {
			t.Fatal(err)
		}
		mustRLock(t, a)
		if err := b.RUnlock(redistest.Ctx(t, waitTimeout)); !errors.Is(err, lockkit.ErrLost) {
			t.Fatalf("stale RUnlock = %v, want ErrLost", err)
		}
		wantState(t, a, rwlock.ReadLocked, 1, 0, 1)
		mustRUnlock(t, a)
	})
}

func TestLock_giving_up_withdraws_intent(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		r, w := rwlock.New(lc, name), rwlock.New(lc, name)
		mustRLock(t, r)
		if err := w.Lock(redistest.Ctx(t, 50*time.Millisecond)); err == nil {
			t.Fatal("Lock under a reader succeeded")
		}
		if s := state(t, w); s.WaitingWriters != 0 || s.HoldCount != 0 {
			t.Fatalf("state after a Lock that gave up = %+v; want no intent, no hold", s)
		}
		newcomer := rwlock.New(lc, name)
		if !tryRLock(t, newcomer) {
			t.Fatal("a new reader was held back by a writer that gave up")
		}
		mustRUnlock(t, newcomer)

		// Now a writer waits: a reader's re-entry goes on, a new reader
		// waits behind the writer until its own deadline.
		done := async(t, func() error { return w.Lock(redistest.Ctx(t, waitTimeout)) })
		redistest.Eventually(t, waitTimeout, "the writer's intent", func() bool { return state(t, r).WaitingWriters == 1 })
		if err := r.RLock(redistest.Ctx(t, waitTimeout)); err != nil {
			t.Fatalf("RLock re-entry under a waiting writer = %v", err)
		}
		rctx := redistest.Ctx(t, 50*time.Millisecond)
		err := newcomer.RLock(rctx)
		if !errors.Is(err, lockkit.ErrNotObtained) || !errors.Is(err, rctx.Err()) || rctx.Err() == nil {
			t.Fatalf("RLock past its deadline = %v, want ErrNotObtained and %v", err, rctx.Err())
		}
		if newcomer.RToken() != 0 {
			t.Fatal("a failed RLock left a read hold")
		}
		mustRUnlock(t, r)
		pending(t, done, "Lock while a reader holds")
		mustRUnlock(t, r)
		if err := redistest.Receive(t, done, waitTimeout, "Lock after the last reader left"); err != nil {
			t.Fatal(err)
		}
		if s := state(t, w); s.WaitingWriters != 0 {
			t.Fatalf("intent left after the writer got the lock: %+v", s)
		}
		redistest.MustUnlock(t, w)
	})
}

func TestTryLock_leaves_no_intent(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		r, w := rwlock.New(lc, name), rwlock.New(lc, name)
		mustRLock(t, r)
		if tryLock(t, w) {
			t.Fatal("TryLock succeeded under a reader")
		}
		if s := state(t, w); s.WaitingWriters != 0 {
			t.Fatalf("TryLock left an intent: %+v", s)
		}
		newcomer := rwlock.New(lc, name)
		if !tryRLock(t, newcomer) {
			t.Fatal("new reader refused after a failed TryLock")
		}
		mustRUnlock(t, newcomer)
		mustRUnlock(t, r)
	})
}

func TestRLocker_is_the_read_side(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		m := rwlock.New(lc, name)
		l := m.RLocker()
		ctx := redistest.Ctx(t, waitTimeout)
		if l.Name() != name {
			t.Fatalf("RLocker().Name() = %q, want %q", l.Name(), name)
		}
		if err := l.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if ok, err := l.TryLock(ctx); !ok || err != nil {
			t.Fatalf("RLocker TryLock = %v, %v; want a read re-entry", ok, err)
		}
		wantState(t, m, rwlock.ReadLocked, 1, 0, 2)
		for range 2 {
			if err := l.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Unlock(ctx); !errors.Is(err, lockkit.ErrNotHeld) {
			t.Fatalf("extra RLocker Unlock = %v, want ErrNotHeld", err)
		}
		var wl lockkit.Locker = m
		if err := wl.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		wantState(t, m, rwlock.WriteLocked, 0, 1, 0)
		if ok, err := l.TryLock(ctx); !ok || err != nil {
			t.Fatalf("RLocker TryLock by the writer = %v, %v; want true", ok, err)
		}
		if err := wl.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		wantState(t, m, rwlock.ReadLocked, 1, 0, 1)
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

func TestToken_strictly_increases_across_sides(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		var last int64
		check := func(what string, tok int64) {
			t.Helper()
			if tok <= last {
				t.Fatalf("%s token %d not above %d", what, tok, last)
			}
			last = tok
		}
		for range 3 {
			w := rwlock.New(lc, name)
			redistest.MustLock(t, w)
			check("write", w.Token())
			redistest.MustUnlock(t, w)
			r1, r2 := rwlock.New(lc, name), rwlock.New(lc, name)
			mustRLock(t, r1)
			check("read", r1.RToken())
			mustRLock(t, r2)
			check("second read", r2.RToken())
			mustRUnlock(t, r1)
			mustRUnlock(t, r2)
		}
	})
}

func TestNotifier_idle_after_waits(t *testing.T) {
	_, c := redistest.Mini(t)
	lc := redistest.Lockkit(t, c)
	name := redistest.Unique(t)
	w, r := rwlock.New(lc, name), rwlock.New(lc, name)
	redistest.MustLock(t, w)
	done := async(t, func() error { return r.RLock(redistest.Ctx(t, waitTimeout)) })
	redistest.Eventually(t, waitTimeout, "the reader to wait", func() bool {
		return lc.Notifier().Channels() == 1
	})
	redistest.MustUnlock(t, w)
	if err := redistest.Receive(t, done, waitTimeout, "RLock"); err != nil {
		t.Fatal(err)
	}
	mustRUnlock(t, r)
	if n := lc.Notifier().Channels(); n != 0 {
		t.Fatalf("%d channels with waiters after every wait ended", n)
	}
	if n := lc.Watchdog().Len(); n != 0 {
		t.Fatalf("%d holds left with the watchdog after every hold ended", n)
	}
}

func TestLock_reentry_with_ended_ctx_returns_ErrNotObtained(t *testing.T) {
	_, c := redistest.Mini(t)
	lc := redistest.Lockkit(t, c)
	m := rwlock.New(lc, redistest.Unique(t))
	redistest.MustLock(t, m)
	mustRLock(t, m)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for what, f := range map[string]func() error{
		"Lock":  func() error { return m.Lock(ctx) },
		"RLock": func() error { return m.RLock(ctx) },
	} {
		if err := f(); !errors.Is(err, lockkit.ErrNotObtained) || !errors.Is(err, context.Canceled) {
			t.Fatalf("%s with an ended ctx = %v, want ErrNotObtained and context.Canceled", what, err)
		}
	}
	wantState(t, m, rwlock.WriteLocked, 1, 1, 1)
	mustRUnlock(t, m)
	redistest.MustUnlock(t, m)
}

// TestLock_lost_acquire_reply_leaves_no_stray_hold: an acquire that ran on
// the server but whose reply was lost must not leave a hold nobody knows
// of, or an intent, which would keep everyone else out.
func TestLock_lost_acquire_reply_leaves_no_stray_hold(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		hook := &redistest.DropReply{}
		c.AddHook(hook)
		lc := redistest.Lockkit(t, c)
		name := redistest.Unique(t)
		m := rwlock.New(lc, name)
		ctx := redistest.Ctx(t, waitTimeout)
		lock := map[string]func() error{
			"Lock":     func() error { return m.Lock(ctx) },
			"TryLock":  func() error { _, err := m.TryLock(ctx); return err },
			"RLock":    func() error { return m.RLock(ctx) },
			"TryRLock": func() error { _, err := m.TryRLock(ctx); return err },
		}

		// Fresh holds whose replies are lost are taken back.
		for what, f := range lock {
			hook.Arm()
			if err := f(); !errors.Is(err, redistest.ErrReplyDropped) {
				t.Fatalf("%s with lost reply = %v, want ErrReplyDropped", what, err)
			}
			if s := state(t, m); s.Mode != rwlock.Unlocked || s.WaitingWriters != 0 {
				t.Fatalf("state after %s with lost reply = %+v; want unlocked, no intent", what, s)
			}
			if m.Token() != 0 || m.RToken() != 0 {
				t.Fatalf("%s with lost reply left a hold known", what)
			}
		}

		// Re-entries whose replies are lost are cut back.
		redistest.MustLock(t, m)
		mustRLock(t, m)
		for what, f := range lock {
			hook.Arm()
			if err := f(); !errors.Is(err, redistest.ErrReplyDropped) {
				t.Fatalf("re-entrant %s with lost reply = %v, want ErrReplyDropped", what, err)
			}
			wantState(t, m, rwlock.WriteLocked, 1, 1, 1)
		}
		mustRUnlock(t, m)
		redistest.MustUnlock(t, m)
		wantState(t, m, rwlock.Unlocked, 0, 0, 0)

		// A waiting writer whose refreshed intent's reply is lost withdraws
		// it when it gives up.
		r := rwlock.New(lc, name)
		mustRLock(t, r)
		hook.Arm()
		if err := m.Lock(ctx); !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("Lock under a reader with lost reply = %v, want ErrReplyDropped", err)
		}
		if s := state(t, m); s.WaitingWriters != 0 || s.Readers != 1 || s.HoldCount != 0 {
			t.Fatalf("state = %+v; want r reading, no intent", s)
		}
		mustRUnlock(t, r)
	})
}

// TestRUnlock_of_lost_hold_releases_it_if_it_lingers: a fixed lease ends by
// the owner's clock a little before it ends on the server; RUnlock of such
// a hold reports ErrLost and still frees it for the others.
func TestRUnlock_of_lost_hold_releases_it_if_it_lingers(t *testing.T) {
	mr, c := redistest.Mini(t)
	lc := redistest.Lockkit(t, c)
	mr.SetTime(time.Now()) // the server's clock stands still: no lease ends there
	name := redistest.Unique(t)
	r := rwlock.New(lc, name, lockkit.WithLease(100*time.Millisecond))
	mustRLock(t, r)
	redistest.Receive(t, r.RLost(), waitTimeout, "the read lease to end by the owner's clock")
	if err := r.RUnlock(redistest.Ctx(t, waitTimeout)); !errors.Is(err, lockkit.ErrLost) {
		t.Fatalf("RUnlock of the lost read hold = %v, want ErrLost", err)
	}
	wantState(t, r, rwlock.Unlocked, 0, 0, 0)
}
