package reentrant_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

// childHolder takes the lock and holds it until killed.
// Args: addr, lock name, watchdog timeout.
func childHolder(args []string) {
	c := redis.NewClient(&redis.Options{Addr: args[0]})
	defer c.Close()
	d, _ := time.ParseDuration(args[2])
	lc := lockkit.New(c)
	defer lc.Close()
	m := reentrant.New(lc, args[1], lockkit.WithWatchdogTimeout(d))
	if err := m.Lock(context.Background()); err != nil {
		redistest.ChildFatalf("lock: %v", err)
	}
	redistest.ChildPrintf("acquired %d", m.Token())
	for range redistest.ChildLines() {
	}
	select {} // hold until killed
}

// cohortClient is the Client of a "counter-cohort" child's goroutines.
var (
	cohortOnce   sync.Once
	cohortClient *lockkit.Client
)

func TestMain(m *testing.M) {
	redistest.Main(m, redistest.Children{
		"counter": redistest.CountingChild(func(clients []redis.UniversalClient, name string) redistest.TokenLocker {
			return reentrant.New(lockkit.New(clients[0]), name)
		}),
		"holder": childHolder,
		"counter-cohort": redistest.CountingChild(func(clients []redis.UniversalClient, name string) redistest.TokenLocker {
			// One Client for every goroutine: the process is one cohort.
			cohortOnce.Do(func() { cohortClient = lockkit.New(clients[0]) })
			return reentrant.New(cohortClient, name, reentrant.WithLocalHandoff(8, 50*time.Millisecond))
		}),
	})
}

// channelOf is the channel on which lc's waiters for lock name sleep.
func channelOf(lc *lockkit.Client, name string) string {
	return core.SleepChannel(lc, core.KeysFor(lc, name).Channel)
}

// waitAsleep waits until n goroutines of lc's process sleep in Lock for
// lock name, woken only by a release or the blocking lease's end.
func waitAsleep(t *testing.T, lc *lockkit.Client, name string, n int) {
	t.Helper()
	redistest.Eventually(t, 10*time.Second, fmt.Sprintf("%d waiters asleep", n), func() bool {
		return lc.Notifier().Sleeping(channelOf(lc, name)) == n
	})
}

// plainAndCohort runs test in a subtest without cohort mode ("plain") and
// in one with it ("cohort"); opts select the mode, for the Mutexes test
// makes.
func plainAndCohort(t *testing.T, test func(t *testing.T, opts []lockkit.Option)) {
	for _, tc := range []struct {
		name string
		opts []lockkit.Option
	}{{"plain", nil}, {"cohort", []lockkit.Option{handoff}}} {
		t.Run(tc.name, func(t *testing.T) { test(t, tc.opts) })
	}
}

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Of("reentrant", reentrant.New))
}

func TestConformance_without_reentry(t *testing.T) {
	conformance.RunWithoutReentry(t, conformance.Of("reentrant", reentrant.New))
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
		got := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), b)
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
	_, lc, name := redistest.OnServer(t)
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
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, c redis.UniversalClient) {
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

// TestLock_excludes_across_processes has 4 processes × 16 goroutines, each
// its own owner, increment one counter 10 times each under the lock with a
// separate read and write.
func TestLock_excludes_across_processes(t *testing.T) {
	redistest.CountRun{
		Child: "counter", Procs: 4, Goroutines: 16, Rounds: 10, Timeout: 2 * time.Minute,
	}.OnNewServer(t)
}

func TestLock_after_holder_process_killed(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	name := redistest.Unique(t)
	const lease = time.Second
	holder := redistest.StartChild(t, "holder", srv.Addr(), name, lease.String())
	holder.WaitLine(t, "acquired", 30*time.Second)

	lc := redistest.Lockkit(t, c)
	m := reentrant.New(lc, name)
	if ok, _ := m.TryLock(redistest.Ctx(t, time.Second)); ok {
		t.Fatal("acquired while the holder process lives")
	}
	got := redistest.LockAsync(redistest.Ctx(t, 30*time.Second), m)
	redistest.Eventually(t, 10*time.Second, "the waiter to subscribe", func() bool {
		return lc.Notifier().Waiters(channelOf(lc, name)) == 1
	})
	holder.Kill(t)
	// Nothing but the dead holder's lease bounds the waiter's sleep: no
	// release will come. A waiter that did not bound it would sleep out its
	// 30 s ctx.
	if err := redistest.Receive(t, got, lease+5*time.Second, "Lock after the holder died"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, m)
}

// TestLock_reentry_renews_a_fixed_lease checks that re-entering a hold
// with a fixed lease sets the lease anew, in Redis and in the holder: no
// loss is reported when the first lease's time passes, and the hold ends
// one lease after the re-entry.
func TestLock_reentry_renews_a_fixed_lease(t *testing.T) {
	_, lc, name := redistest.OnServer(t)
	const lease = time.Second
	m := reentrant.New(lc, name, lockkit.WithLease(lease))
	redistest.MustLock(t, m)
	start := time.Now()
	time.Sleep(lease / 3) // the first lease ages
	redistest.MustLock(t, m)
	time.Sleep(time.Until(start.Add(lease + lease/5))) // past the first lease's end
	select {
	case <-m.Lost():
		t.Fatal("lost signal at the end of the first lease, though a re-entry renewed it")
	default:
	}
	if ok, err := reentrant.New(lc, name).TryLock(redistest.Ctx(t, time.Second)); ok || err != nil {
		t.Fatalf("TryLock by another owner after the first lease = %v, %v; want false", ok, err)
	}
	redistest.Receive(t, m.Lost(), 5*time.Second, "the lost signal one lease after the re-entry")
	redistest.WantErr(t, m.Unlock(redistest.Ctx(t, time.Second)), lockkit.ErrLost)
}
