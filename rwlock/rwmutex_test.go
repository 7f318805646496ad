package rwlock_test

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
)

// waitTimeout is the generous deadline of every wait that should end
// quickly; reaching it fails the test loudly instead of hanging.
const waitTimeout = 10 * time.Second

// childTimeout bounds how long a test waits for a child's next line.
const childTimeout = 2 * time.Minute

// backends are the kinds of Redis the behaviour tests run on.
var backends = redistest.SingleNode()

func TestMain(m *testing.M) {
	redistest.Main(m, redistest.Children{
		"rw-hammer":    hammerChild,
		"rw-read-load": readLoadChild,
		"rw-reader":    readerChild,
		"rw-writer":    writerChild,
	})
}

// onBackends runs f as a parallel subtest on each of backends, with a
// client c of an instance of its own, a Client lc of c and a fresh lock
// name.
func onBackends(t *testing.T, f func(t *testing.T, c redis.UniversalClient, lc *lockkit.Client, name string)) {
	t.Helper()
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		f(t, c, redistest.Lockkit(t, c), redistest.Unique(t))
	})
}

// lockKey is the lock hash of name under the default prefix.
func lockKey(name string) string { return "lockkit:{" + name + "}" }

// channel is the channel part ("ch" for readers, "wch" for writers) of
// lock name made from c, under the default prefix.
func channel(c *lockkit.Client, name, part string) string { return core.KeysFor(c, name).Chan(part) }

// writersChannel is the channel on which c's writers for lock name sleep.
func writersChannel(c *lockkit.Client, name string) string {
	return core.SleepChannel(c, channel(c, name, "wch"))
}

// readHeld returns two RWMutexes of lc and name, the first holding a
// read lock.
func readHeld(t testing.TB, lc *lockkit.Client, name string) (r, w *rwlock.RWMutex) {
	t.Helper()
	r, w = rwlock.New(lc, name), rwlock.New(lc, name)
	mustRLock(t, r)
	return r, w
}

// mustRLock, mustRUnlock, tryLock and tryRLock call the method of m they
// are named after and fail the test if it returns an error.
func mustRLock(t testing.TB, m *rwlock.RWMutex) {
	t.Helper()
	must(t, m, "RLock", m.RLock)
}

func mustRUnlock(t testing.TB, m *rwlock.RWMutex) {
	t.Helper()
	must(t, m, "RUnlock", m.RUnlock)
}

func tryLock(t testing.TB, m *rwlock.RWMutex) bool {
	t.Helper()
	return try(t, m, "TryLock", m.TryLock)
}

func tryRLock(t testing.TB, m *rwlock.RWMutex) bool {
	t.Helper()
	return try(t, m, "TryRLock", m.TryRLock)
}

// must calls f, the method what of m, and fails the test on an error.
func must(t testing.TB, m *rwlock.RWMutex, what string, f func(context.Context) error) {
	t.Helper()
	if err := f(redistest.Ctx(t, waitTimeout)); err != nil {
		t.Fatalf("%s(%s): %v", what, m.Name(), err)
	}
}

// try calls f, the method what of m, and fails the test on an error.
func try(t testing.TB, m *rwlock.RWMutex, what string, f func(context.Context) (bool, error)) bool {
	t.Helper()
	ok, err := f(redistest.Ctx(t, waitTimeout))
	if err != nil {
		t.Fatalf("%s(%s): %v", what, m.Name(), err)
	}
	return ok
}

func state(t testing.TB, m *rwlock.RWMutex) rwlock.State {
	t.Helper()
	s, err := m.State(redistest.Ctx(t, waitTimeout))
	if err != nil {
		t.Fatalf("State(%s): %v", m.Name(), err)
	}
	return s
}

// wantState checks the mode, reader count and m's hold counts.
func wantState(t testing.TB, m *rwlock.RWMutex, mode rwlock.Mode, readers, holds, rholds int) {
	t.Helper()
	s := state(t, m)
	if s.Mode != mode || s.Readers != readers || s.HoldCount != holds || s.RHoldCount != rholds {
		t.Fatalf("state = %+v; want mode %v, %d readers, HoldCount %d, RHoldCount %d",
			s, mode, readers, holds, rholds)
	}
}

// wantAdmitted checks that r, a new reader, gets the read lock at once,
// held back by no writer's intent, and releases it.
func wantAdmitted(t testing.TB, r *rwlock.RWMutex, when string) {
	t.Helper()
	if !tryRLock(t, r) {
		t.Fatalf("a new reader was held back %s", when)
	}
	mustRUnlock(t, r)
}

// eventuallyAdmitted waits until a new reader of lock name of c gets in,
// and returns it, holding its read: what is waited for says what.
func eventuallyAdmitted(t testing.TB, c *lockkit.Client, name, what string) *rwlock.RWMutex {
	t.Helper()
	newcomer := rwlock.New(c, name)
	redistest.Eventually(t, waitTimeout, what, func() bool {
		ok, err := newcomer.TryRLock(redistest.Ctx(t, waitTimeout))
		return ok && err == nil
	})
	return newcomer
}

// async runs f in a goroutine and returns a channel with its result; the
// test waits for it before it ends.
func async(t testing.TB, f func() error) <-chan error {
	t.Helper()
	ch, done := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(done)
		ch <- f()
	}()
	t.Cleanup(func() { <-done })
	return ch
}

// pending checks that ch has no result yet.
func pending(t testing.TB, ch <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s returned early: %v", what, err)
	default:
	}
}

// The write side's exclusive-lock contract is tested by the conformance
// suite (conformance_test.go); the tests here are the read side's and what
// ties the two sides together.

func TestRLock_readers_share_writer_excludes(t *testing.T) {
	onBackends(t, func(t *testing.T, c redis.UniversalClient, lc *lockkit.Client, name string) {
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
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
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
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
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
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
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
		wantAdmitted(t, rwlock.New(lc, name), "after a refused upgrade")
		mustRUnlock(t, r)
		mustRUnlock(t, other)
		redistest.MustLock(t, r) // no longer a reader: allowed
		redistest.MustUnlock(t, r)
	})
}

func TestRUnlock_not_held_returns_ErrNotHeld(t *testing.T) {
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
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
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
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
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
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
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
		r, w := readHeld(t, lc, name)
		if err := w.Lock(redistest.Ctx(t, 50*time.Millisecond)); err == nil {
			t.Fatal("Lock under a reader succeeded")
		}
		if s := state(t, w); s.WaitingWriters != 0 || s.HoldCount != 0 {
			t.Fatalf("state after a Lock that gave up = %+v; want no intent, no hold", s)
		}
		newcomer := rwlock.New(lc, name)
		wantAdmitted(t, newcomer, "by a writer that gave up")

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
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
		r, w := readHeld(t, lc, name)
		if tryLock(t, w) {
			t.Fatal("TryLock succeeded under a reader")
		}
		if s := state(t, w); s.WaitingWriters != 0 {
			t.Fatalf("TryLock left an intent: %+v", s)
		}
		wantAdmitted(t, rwlock.New(lc, name), "after a failed TryLock")
		mustRUnlock(t, r)
	})
}

func TestRLocker_is_the_read_side(t *testing.T) {
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
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
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
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

// TestRToken_increases_across_a_redis_restart_that_lost_the_counter: a
// restart without persistence loses the write hold and the fencing counter
// that read and write holds share, yet the next read's token is larger
// than the write's before it, and the next write's larger still (the
// conformance suite checks the write side alone).
func TestRToken_increases_across_a_redis_restart_that_lost_the_counter(t *testing.T) {
	srv, lc, name := redistest.OnServer(t)
	w := rwlock.New(lc, name)
	before := srv.RestartHolding(t, w)
	r := rwlock.New(lc, name)
	mustRLock(t, r)
	if r.RToken() <= before {
		t.Fatalf("read token %d after the restart, not above the write's %d from before it", r.RToken(), before)
	}
	redistest.WantErr(t, w.Unlock(redistest.Ctx(t, 5*time.Second)), lockkit.ErrLost)
	mustRUnlock(t, r)
	redistest.MustLock(t, w)
	if w.Token() <= r.RToken() {
		t.Fatalf("write token %d after a read with token %d", w.Token(), r.RToken())
	}
	redistest.MustUnlock(t, w)
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

// A lock of another kind under the same name: each kind refuses the
// other's hash with ErrWrongKind and leaves it as it was.

// wantWrongKind fails the test unless err matches ErrWrongKind.
func wantWrongKind(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, lockkit.ErrWrongKind) {
		t.Fatalf("%s = %v, want ErrWrongKind", what, err)
	}
}

func TestRWMutex_and_reentrant_lock_of_one_name_exclude_each_other(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		ctx := redistest.Ctx(t, waitTimeout)

		t.Run("reentrant first", func(t *testing.T) {
			name := redistest.Unique(t)
			mu := reentrant.New(lc, name)
			redistest.MustLock(t, mu)
			token := mu.Token()
			before := dumpHash(t, c, lockKey(name))
			m := rwlock.New(lc, name)
			// Lock and RLock would wait for a lock of their own kind: they
			// return at once instead, with no intent left behind.
			wantWrongKind(t, "Lock", m.Lock(ctx))
			_, err := m.TryLock(ctx)
			wantWrongKind(t, "TryLock", err)
			wantWrongKind(t, "RLock", m.RLock(ctx))
			_, err = m.TryRLock(ctx)
			wantWrongKind(t, "TryRLock", err)
			_, err = m.ForceUnlock(ctx)
			wantWrongKind(t, "ForceUnlock", err)
			_, err = m.State(ctx)
			wantWrongKind(t, "State", err)
			if m.Token() != 0 || m.RToken() != 0 {
				t.Fatal("the rwlock reports a hold")
			}
			if after := dumpHash(t, c, lockKey(name)); !maps.Equal(before, after) {
				t.Fatalf("the reentrant lock's hash changed: %v -> %v", before, after)
			}
			for _, k := range []string{":leases", ":writers"} {
				if n, err := c.Exists(ctx, lockKey(name)+k).Result(); err != nil || n != 0 {
					t.Fatalf("rwlock key %s written: %d, %v", k, n, err)
				}
			}
			// The reentrant holder keeps its lock.
			redistest.WantHoldCount(t, mu, 1)
			if mu.Token() != token {
				t.Fatalf("the reentrant hold's token changed %d -> %d", token, mu.Token())
			}
			select {
			case <-mu.Lost():
				t.Fatal("the reentrant hold was reported lost")
			default:
			}
			redistest.MustLock(t, mu) // re-entry still works
			redistest.MustUnlock(t, mu)
			redistest.MustUnlock(t, mu)
			// Once the name is free, the rwlock takes it.
			redistest.MustLock(t, m)
			redistest.MustUnlock(t, m)
		})

		for _, side := range []string{"read", "write"} {
			t.Run("rwlock first, "+side, func(t *testing.T) {
				name := redistest.Unique(t)
				m := rwlock.New(lc, name)
				if side == "read" {
					mustRLock(t, m)
				} else {
					redistest.MustLock(t, m)
				}
				before := dumpHash(t, c, lockKey(name))
				mu := reentrant.New(lc, name)
				wantWrongKind(t, "Lock", mu.Lock(ctx))
				_, err := mu.TryLock(ctx)
				wantWrongKind(t, "TryLock", err)
				_, err = mu.ForceUnlock(ctx)
				wantWrongKind(t, "ForceUnlock", err)
				if after := dumpHash(t, c, lockKey(name)); !maps.Equal(before, after) {
					t.Fatalf("the rwlock's hash changed: %v -> %v", before, after)
				}
				// The rwlock's hold is untouched.
				if side == "read" {
					wantState(t, m, rwlock.ReadLocked, 1, 0, 1)
					mustRUnlock(t, m)
				} else {
					wantState(t, m, rwlock.WriteLocked, 0, 1, 0)
					redistest.MustUnlock(t, m)
				}
				redistest.MustLock(t, mu)
				redistest.MustUnlock(t, mu)
			})
		}
	})
}

// dumpHash returns the fields of the hash at key.
func dumpHash(t *testing.T, c redis.UniversalClient, key string) map[string]string {
	t.Helper()
	h, err := c.HGetAll(context.Background(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(h) == 0 {
		t.Fatalf("hash %s is empty", key)
	}
	return h
}

// The invariant across processes: any number of readers or one writer
// inside, never both, checked by hammer children in Redis.

//go:embed testdata/check.lua
var checkLua string

var checkScript = redis.NewScript(checkLua)

// checker records who is inside lock name, in Redis, so that holders in
// every process check the invariant against one shared state.
type checker struct {
	c    redis.UniversalClient
	keys []string
}

func newChecker(c redis.UniversalClient, name string) checker {
	k := func(s string) string { return "check:{" + name + "}:" + s }
	return checker{c, []string{k("readers"), k("writers"), k("violations"), k("maxreaders")}}
}

// step applies op and reports a violation as an error.
func (ck checker) step(ctx context.Context, op string) error {
	bad, err := checkScript.Run(ctx, ck.c, ck.keys, op).Int()
	if err != nil {
		return err
	}
	if bad == 1 {
		return fmt.Errorf("invariant broken after %q", op)
	}
	return nil
}

// totals returns the violations counted and the most readers seen at once.
func (ck checker) totals(ctx context.Context) (violations, maxReaders int, err error) {
	vals, err := ck.c.MGet(ctx, ck.keys[2], ck.keys[3]).Result()
	if err != nil {
		return 0, 0, err
	}
	n := func(v any) int {
		s, _ := v.(string)
		i, _ := strconv.Atoi(s)
		return i
	}
	return n(vals[0]), n(vals[1]), nil
}

// hammerChild runs args[2] goroutines, each its own owner, doing args[3]
// random operations on lock args[1] (reads, re-entrant reads, writes and
// downgrades) under the checker, once the test sends "go". Violations are
// counted in Redis; any error ends the child with status 1.
func hammerChild(args []string) {
	lc, c, done := redistest.ChildLockkit(args[0])
	defer done()
	name := args[1]
	goroutines, _ := strconv.Atoi(args[2])
	ops, _ := strconv.Atoi(args[3])
	ck := newChecker(c, name)
	redistest.ChildPrintf("ready")
	for line := range redistest.ChildLines() {
		if line == "go" {
			break
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	var reads, writes, downgrades atomic.Int64
	var hammers errgroup.Group
	for g := range goroutines {
		hammers.Go(func() error {
			rng := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(g)))
			m := rwlock.New(lc, name)
			for range ops {
				var err error
				switch p := rng.IntN(10); {
				case p < 7:
					err = hammerRead(ctx, m, ck, rng)
					reads.Add(1)
				case p < 9:
					err = hammerWrite(ctx, m, ck, rng)
					writes.Add(1)
				default:
					err = hammerDowngrade(ctx, m, ck, rng)
					downgrades.Add(1)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := hammers.Wait(); err != nil {
		redistest.ChildFatalf("hammer: %v", err)
	}
	redistest.ChildPrintf("done reads=%d writes=%d downgrades=%d", reads.Load(), writes.Load(), downgrades.Load())
}

// pause holds the lock for up to max, so that holders overlap.
func pause(rng *rand.Rand, max time.Duration) {
	time.Sleep(time.Duration(rng.Int64N(int64(max))))
}

// enter records op once take, which took a hold, returned: it reports
// take's error, or a violation of the invariant.
func (ck checker) enter(ctx context.Context, take error, op string) error {
	if take != nil {
		return take
	}
	return ck.step(ctx, op)
}

// leave records op and then releases the hold with release.
func (ck checker) leave(ctx context.Context, op string, release func(context.Context) error) error {
	if err := ck.step(ctx, op); err != nil {
		return err
	}
	return release(ctx)
}

func hammerRead(ctx context.Context, m *rwlock.RWMutex, ck checker, rng *rand.Rand) error {
	if err := ck.enter(ctx, m.RLock(ctx), "r+"); err != nil {
		return err
	}
	if rng.IntN(4) == 0 { // re-enter, even while a writer waits
		if err := m.RLock(ctx); err != nil {
			return fmt.Errorf("re-entrant RLock: %w", err)
		}
		if err := m.RUnlock(ctx); err != nil {
			return err
		}
	}
	pause(rng, 2*time.Millisecond)
	return ck.leave(ctx, "r-", m.RUnlock)
}

func hammerWrite(ctx context.Context, m *rwlock.RWMutex, ck checker, rng *rand.Rand) error {
	if err := ck.enter(ctx, m.Lock(ctx), "w+"); err != nil {
		return err
	}
	pause(rng, time.Millisecond)
	return ck.leave(ctx, "w-", m.Unlock)
}

func hammerDowngrade(ctx context.Context, m *rwlock.RWMutex, ck checker, rng *rand.Rand) error {
	if err := ck.enter(ctx, m.Lock(ctx), "w+"); err != nil {
		return err
	}
	if err := m.RLock(ctx); err != nil {
		return fmt.Errorf("RLock by the writer: %w", err)
	}
	if err := ck.leave(ctx, "w>r", m.Unlock); err != nil {
		return err
	}
	pause(rng, 2*time.Millisecond)
	return ck.leave(ctx, "r-", m.RUnlock)
}

// runInvariant runs the hammer in 3 processes × 16 goroutines against c and
// checks, with lc (a Client of c), that the invariant held and that readers
// overlapped.
func runInvariant(t *testing.T, c redis.UniversalClient, lc *lockkit.Client) {
	const processes, goroutines, ops = 3, 16, 20
	name := redistest.Unique(t)
	children := make([]*redistest.Child, processes)
	for i := range children {
		children[i] = redistest.StartChild(t, "rw-hammer", redistest.ClientSpec(c), name,
			strconv.Itoa(goroutines), strconv.Itoa(ops))
	}
	for _, ch := range children {
		ch.WaitLine(t, "ready", childTimeout)
	}
	for _, ch := range children {
		ch.Send(t, "go")
	}
	for _, ch := range children {
		t.Log(ch.WaitLine(t, "done", childTimeout))
		ch.Wait(t, childTimeout)
	}
	ctx := redistest.Ctx(t, waitTimeout)
	violations, maxReaders, err := newChecker(c, name).totals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if violations != 0 {
		t.Fatalf("%d invariant violations", violations)
	}
	if maxReaders < 2 {
		t.Fatalf("at most %d reader inside at once: readers never overlapped", maxReaders)
	}
	t.Logf("readers inside at once: up to %d", maxReaders)
	if s := state(t, rwlock.New(lc, name)); s.Mode != rwlock.Unlocked || s.WaitingWriters != 0 {
		t.Fatalf("state after every process finished = %+v; want unlocked, no intent", s)
	}
}

func TestInvariant_across_processes(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	runInvariant(t, rc, redistest.Lockkit(t, rc))
}

func TestInvariant_across_processes_on_cluster(t *testing.T) {
	rc := redistest.StartCluster(t).Client(t)
	c := redistest.Lockkit(t, rc)
	runInvariant(t, rc, c)

	// On the same cluster: the watchdog keeps per-hold leases alive through
	// its pipelined renewals, which go to the lock's slot.
	name := redistest.Unique(t)
	const lease = 300 * time.Millisecond
	r1 := rwlock.New(c, name, lockkit.WithWatchdogTimeout(lease))
	r2 := rwlock.New(c, name, lockkit.WithWatchdogTimeout(lease))
	mustRLock(t, r1)
	mustRLock(t, r2)
	renewals, last := 0, time.Duration(0)
	redistest.Eventually(t, waitTimeout, "the read leases to be renewed several times", func() bool {
		ttl := state(t, r1).TTL
		if ttl > last {
			renewals++
		}
		last = ttl
		return renewals >= 6 // well past the 300 ms lease
	})
	if s := state(t, r1); s.Readers != 2 {
		t.Fatalf("state = %+v; want both readers still holding", s)
	}
	mustRUnlock(t, r1)
	mustRUnlock(t, r2)
	w := rwlock.New(c, name)
	redistest.MustLock(t, w)
	redistest.MustUnlock(t, w)
}

func TestChecker_reports_violations(t *testing.T) {
	_, c := redistest.Mini(t)
	ck := newChecker(c, redistest.Unique(t))
	ctx := redistest.Ctx(t, waitTimeout)
	for _, tc := range []struct {
		op  string
		bad bool
	}{
		{"r+", false}, {"r+", false}, {"w+", true}, {"w-", false}, {"r-", false}, {"r-", false},
		{"w+", false}, {"w+", true}, {"w-", false}, {"w>r", false}, {"r-", false}, {"r-", true},
	} {
		if err := ck.step(ctx, tc.op); (err != nil) != tc.bad {
			t.Fatalf("step %q = %v, want violation %v", tc.op, err, tc.bad)
		}
	}
	if v, maxReaders, err := ck.totals(ctx); err != nil || v != 3 || maxReaders != 2 {
		t.Fatalf("totals = %d, %d, %v; want 3 violations, 2 readers at most", v, maxReaders, err)
	}
}
