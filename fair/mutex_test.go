package fair_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Of("fair", fair.New))
}

func TestConformance_without_reentry(t *testing.T) {
	conformance.RunWithoutReentry(t, conformance.Of("fair", fair.New))
}

func TestLock_reenters_at_once_while_others_queue(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *lockEnv) {
		holder := e.held()
		w := e.mutex(lockkit.WithOwner("w"))
		got := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), w)
		e.waitQueue("w")

		// The holder re-enters past the queue, by Lock and by TryLock.
		redistest.MustLock(t, holder)
		if ok, err := holder.TryLock(redistest.Ctx(t, time.Second)); !ok || err != nil {
			t.Fatalf("TryLock by holder = %v, %v; want re-entry", ok, err)
		}
		redistest.WantHoldCount(t, holder, 3)
		e.wantQueue("w")
		for range 3 {
			redistest.MustUnlock(t, holder)
		}
		e.wantTurn(w, got, 10*time.Second, "the waiter")
	})
}

func TestTryLock_does_not_jump_the_queue(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *lockEnv) {
		ctx := redistest.Ctx(t, 10*time.Second)
		m := e.mutex()

		// Held by another owner: fails, and does not queue.
		holder := e.held()
		if ok, err := m.TryLock(ctx); ok || err != nil {
			t.Fatalf("TryLock on a held lock = %v, %v; want false", ok, err)
		}
		e.wantQueue()
		redistest.MustUnlock(t, holder)

		// Free, but someone waits: fails, and does not queue.
		deadline := e.addGhost("ghost", time.Minute)
		if ok, err := m.TryLock(ctx); ok || err != nil {
			t.Fatalf("TryLock with a waiter queued = %v, %v; want false", ok, err)
		}
		e.wantQueue("ghost")
		if locked, _ := m.IsLocked(ctx); locked {
			t.Fatal("failed TryLock left the lock held")
		}

		// The waiter's entry expires: TryLock evicts it and succeeds.
		if mr, ok := redistest.MiniFor(e.c); ok {
			mr.SetTime(time.UnixMilli(deadline + 1))
		} else {
			e.c.ZAdd(ctx, timeoutsKey(e.name), redis.Z{Score: float64(serverMillis(t, e.c) - 1), Member: "ghost"})
		}
		if ok, err := m.TryLock(ctx); !ok || err != nil {
			t.Fatalf("TryLock once the queue is empty = %v, %v; want true", ok, err)
		}
		e.wantQueue()
		redistest.MustUnlock(t, m)
	})
}

func TestForceUnlock_wakes_the_head(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *lockEnv) {
		a, b := e.held(), e.mutex(lockkit.WithOwner("b"))
		redistest.MustLock(t, a)
		got := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), b)
		e.waitQueue("b")
		ok, err := e.mutex().ForceUnlock(redistest.Ctx(t, time.Second))
		if !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
		}
		acquired(t, got, 10*time.Second, "the waiter after ForceUnlock")
		redistest.WantErr(t, a.Unlock(redistest.Ctx(t, time.Second)), lockkit.ErrLost)
		redistest.MustUnlock(t, b)
		if ok, err := b.ForceUnlock(redistest.Ctx(t, time.Second)); ok || err != nil {
			t.Fatalf("ForceUnlock on a free lock = %v, %v; want false", ok, err)
		}
	})
}

func TestWatchdog_keeps_lock_while_others_wait(t *testing.T) {
	e := newLockEnv(t, redistest.StartServer(t).Client(t))
	const lease = 300 * time.Millisecond
	a := e.held(lockkit.WithWatchdogTimeout(lease))
	// Another owner waits for more than three leases; it must not get the
	// lock, and its entry must be gone when its Lock returns.
	ctx, cancel := context.WithTimeout(context.Background(), 4*lease)
	defer cancel()
	redistest.WantErr(t, e.mutex().Lock(ctx), lockkit.ErrNotObtained, context.DeadlineExceeded)
	e.wantQueue()
	select {
	case <-a.Lost():
		t.Fatal("hold reported lost")
	default:
	}
	redistest.WantHoldCount(t, a, 1)
	redistest.MustUnlock(t, a)
}

// TestLock_other_kind_returns_ErrWrongKind checks that one name is one
// kind: a reentrant lock of the name a fair lock holds is refused and
// changes nothing, and the other way round.
func TestLock_other_kind_returns_ErrWrongKind(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *lockEnv) {
		// refused checks that m can neither take nor force the lock, and
		// that its attempts leave the lock hash as it was.
		refused := func(m interface {
			lockkit.Locker
			ForceUnlock(context.Context) (bool, error)
		}) {
			t.Helper()
			hash := func() map[string]string {
				t.Helper()
				h, err := e.c.HGetAll(redistest.Ctx(t, time.Second), lockKey(e.name)).Result()
				if err != nil {
					t.Fatal(err)
				}
				return h
			}
			before := hash()
			_, err := m.TryLock(redistest.Ctx(t, time.Second))
			redistest.WantErr(t, err, lockkit.ErrWrongKind)
			redistest.WantErr(t, m.Lock(redistest.Ctx(t, time.Second)), lockkit.ErrWrongKind)
			_, err = m.ForceUnlock(redistest.Ctx(t, time.Second))
			redistest.WantErr(t, err, lockkit.ErrWrongKind)
			if got := hash(); !maps.Equal(got, before) {
				t.Fatalf("lock hash = %v, want %v", got, before)
			}
		}

		f, w := e.held(), e.mutex(lockkit.WithOwner("w"))
		got := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), w)
		e.waitQueue("w")
		r := reentrant.New(e.lc, e.name)
		refused(r)
		e.wantQueue("w")
		redistest.WantHoldCount(t, f, 1)
		redistest.MustUnlock(t, f)
		acquired(t, got, 10*time.Second, "the fair waiter")
		redistest.MustUnlock(t, w)

		redistest.MustLock(t, r)
		refused(f)
		e.wantQueue()
		redistest.WantHoldCount(t, r, 1)
		redistest.MustUnlock(t, r)

		// A hold whose name another kind took meanwhile (its key deleted
		// by hand): its Unlock is refused and leaves the other lock be.
		f = e.held()
		if err := e.c.Del(redistest.Ctx(t, time.Second), lockKey(e.name)).Err(); err != nil {
			t.Fatal(err)
		}
		redistest.MustLock(t, r)
		redistest.WantErr(t, f.Unlock(redistest.Ctx(t, time.Second)), lockkit.ErrWrongKind)
		redistest.WantHoldCount(t, r, 1)
		redistest.MustUnlock(t, r)
	})
}

func TestWithWaiterTimeout_rejects_bad_values(t *testing.T) {
	lc, c := redistest.Silent(t)
	cases := []struct {
		name string
		lock func() lockkit.Locker
		want string
	}{
		{"zero", func() lockkit.Locker { return fair.New(lc, "a", fair.WithWaiterTimeout(0)) }, "at least"},
		{"negative", func() lockkit.Locker { return fair.New(lc, "a", fair.WithWaiterTimeout(-time.Second)) }, "at least"},
		{"below 3 ms", func() lockkit.Locker { return fair.New(lc, "a", fair.WithWaiterTimeout(time.Millisecond)) }, "at least"},
		{"first bad option reported", func() lockkit.Locker {
			return fair.New(lc, "a", fair.WithWaiterTimeout(0), lockkit.WithLease(0))
		}, "WithWaiterTimeout"},
		{"on a reentrant lock", func() lockkit.Locker {
			return reentrant.New(lc, "a", fair.WithWaiterTimeout(time.Second))
		}, "does not apply to a reentrant lock"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.lock().Lock(redistest.Ctx(t, time.Second))
			redistest.WantErr(t, err, lockkit.ErrInvalid)
			if !strings.Contains(err.Error(), "WithWaiterTimeout") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want it to name WithWaiterTimeout and say %q", err, tc.want)
			}
		})
	}
	t.Run("as a bad Client default", func(t *testing.T) {
		bad := lockkit.New(c, fair.WithWaiterTimeout(0))
		defer bad.Close()
		redistest.WantErr(t, bad.Err(), lockkit.ErrInvalid)
	})
}

// TestWithWaiterTimeout_as_Client_default checks that a Client's waiter
// timeout is its fair locks' default, and that a lock's own overrides it:
// a waiter's queue deadline is its waiter timeout from its last attempt.
func TestWithWaiterTimeout_as_Client_default(t *testing.T) {
	mr, c := redistest.Mini(t)
	mr.SetTime(time.Now()) // the server's clock stands still
	e := newLockEnv(t, c, fair.WithWaiterTimeout(time.Minute))
	holder := e.held()
	for _, w := range []struct {
		owner string
		opts  []lockkit.Option
		want  time.Duration
	}{
		{"client-default", nil, time.Minute},
		{"own", []lockkit.Option{fair.WithWaiterTimeout(time.Hour)}, time.Hour},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		got := redistest.LockAsync(ctx, e.mutex(append(w.opts, lockkit.WithOwner(w.owner))...))
		var deadline float64
		redistest.Eventually(t, 10*time.Second, w.owner+" queued", func() bool {
			var err error
			deadline, err = c.ZScore(redistest.Ctx(t, time.Second), timeoutsKey(e.name), w.owner).Result()
			return err == nil
		})
		if d := int64(deadline) - serverMillis(t, c); d != w.want.Milliseconds() {
			t.Fatalf("%s: queue deadline %d ms from now, want %v", w.owner, d, w.want)
		}
		cancel()
		if err := redistest.Receive(t, got, 10*time.Second, w.owner+"'s Lock"); !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: cancelled Lock = %v", w.owner, err)
		}
		e.wantQueue()
	}
	redistest.MustUnlock(t, holder)
}

// TestLock_excludes_across_processes has 4 processes × 16 goroutines, each
// its own owner, increment one counter 10 times each under the lock with a
// separate read and write; the lock name is checked clean at the end.
func TestLock_excludes_across_processes(t *testing.T) {
	srv := redistest.StartServer(t)
	redistest.CountRun{
		Child: "counter", Addrs: []string{srv.Addr()}, Name: lockName(t, srv.Client(t)),
		Procs: 4, Goroutines: 16, Rounds: 10, Timeout: 2 * time.Minute,
	}.Run(t)
}
