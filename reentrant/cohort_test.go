package reentrant_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
	"github.com/lockkit/lockkit/watchdog"
)

// handoff is the cohort mode the tests use unless they test its bounds.
var handoff = reentrant.WithLocalHandoff(1000, time.Minute)

// waitLocal waits until n Locks of m's process wait in memory.
func waitLocal(t *testing.T, m *reentrant.Mutex, n int) {
	t.Helper()
	redistest.Eventually(t, 10*time.Second, fmt.Sprintf("%d local waiters", n), func() bool {
		return reentrant.LocalWaiters(m) == n
	})
}

// lockLocal starts m's Lock with ctx and waits until it is the nth Lock
// of m's process to wait in memory; the channel gets its error.
func lockLocal(ctx context.Context, t *testing.T, m *reentrant.Mutex, n int) <-chan error {
	t.Helper()
	got := redistest.LockAsync(ctx, m)
	waitLocal(t, m, n)
	return got
}

// handOver starts to's Lock with ctx, waits until it is the one Lock of
// the process to wait in memory, and has from, which holds, unlock: to's
// Lock must then return with the hold handed over, whose token stays the
// process's hold's.
func handOver(ctx context.Context, t *testing.T, from, to *reentrant.Mutex) {
	t.Helper()
	token := from.Token()
	got := lockLocal(ctx, t, to, 1)
	redistest.MustUnlock(t, from)
	if err := redistest.Receive(t, got, 10*time.Second, "the Lock the hold is handed over to"); err != nil {
		t.Fatal(err)
	}
	if to.Token() != token {
		t.Errorf("token after the hand-over = %d, want the process's hold's %d", to.Token(), token)
	}
}

// TestConformance_with_local_handoff runs the contract every exclusive
// kind keeps on Mutexes in cohort mode, where two Mutexes of one Client
// share the process's hold in Redis and lend it in memory: to its users a
// Mutex in cohort mode is still a Locker like any other. The cases that
// share an owner id (WithOwner, which cohort mode refuses) run without it.
//
// A Mutex of the process waits in memory while another holds, until the
// process learns that the hold is gone: when the keys vanish unseen (a
// restart before any wait opened the pub/sub connection), that is the
// watchdog's next renewal, a third of the lease later. The default lease
// here is short enough for that to come well within the cases' bounds.
func TestConformance_with_local_handoff(t *testing.T) {
	lease := lockkit.WithWatchdogTimeout(6 * time.Second)
	conformance.Run(t, conformance.Of("reentrant", func(c *lockkit.Client, name string, opts ...lockkit.Option) *reentrant.Mutex {
		o := config.Defaults(config.Reentrant)
		config.Apply(&o, opts)
		if o.Owner == "" {
			opts = append([]lockkit.Option{lease, handoff}, opts...)
		}
		return reentrant.New(c, name, opts...)
	}))
}

func TestWithLocalHandoff_invalid(t *testing.T) {
	lc, _ := redistest.Silent(t)
	ctx := redistest.Ctx(t, 10*time.Second)
	for _, tc := range []struct {
		name string
		m    *reentrant.Mutex
		want string
	}{
		{"zero handoffs", reentrant.New(lc, "a", reentrant.WithLocalHandoff(0, time.Second)), "maxHandoffs"},
		{"zero hold", reentrant.New(lc, "a", reentrant.WithLocalHandoff(1, 0)), "maxHold"},
		{"with owner", reentrant.New(lc, "a", handoff, lockkit.WithOwner("job")), "WithOwner"},
		{"spin", spin.New(lc, "a", handoff), "WithLocalHandoff"},
		{"fair", fair.New(lc, "a", handoff), "WithLocalHandoff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redistest.WantInvalid(t, "Lock", tc.m.Lock(ctx), tc.want)
		})
	}
}

// TestLocalHandoff_sends_nothing: an Unlock with a waiter of the same
// Client hands the hold over without a command, and the token stays the
// Redis hold's. Without cohort mode it takes a release and an acquire.
func TestLocalHandoff_sends_nothing(t *testing.T) {
	c, lc, name := oneProcess(t)
	counter := redistest.CountCommands(c)
	ctx := redistest.Ctx(t, 30*time.Second)
	m1, m2 := reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff)
	if err := m1.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m1.Lock(ctx); err != nil { // a re-entry, in memory
		t.Fatal(err)
	}
	got := lockLocal(ctx, t, m2, 1)
	counter.Reset()
	if err := m1.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m1.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := redistest.Receive(t, got, 10*time.Second, "m2's Lock"); err != nil {
		t.Fatal(err)
	}
	if n := counter.Total(); n != 0 {
		t.Errorf("a re-entry's Unlock and a hand-over sent %d commands, want 0", n)
	}
	if m2.Token() == 0 || m1.Token() != 0 {
		t.Errorf("tokens after the hand-over: m1 %d (want 0), m2 %d (want the hold's)", m1.Token(), m2.Token())
	}
	if n, err := m2.HoldCount(ctx); n != 1 || err != nil {
		t.Errorf("m2.HoldCount = %d, %v; want 1", n, err)
	}
	redistest.WantErr(t, m1.Unlock(ctx), lockkit.ErrNotHeld)
	if err := m2.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := m1.IsLocked(ctx); ok || err != nil {
		t.Errorf("IsLocked after the last Unlock = %v, %v; want false", ok, err)
	}
	redistest.AssertClean(t, c, name)
}

// TestLocalHandoff_token_kept: a hand-over keeps the token; a hold taken
// from Redis again gets a larger one.
func TestLocalHandoff_token_kept(t *testing.T) {
	_, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	m1, m2 := heldInCohort(t, lc, name)
	t1 := m1.Token()
	handOver(ctx, t, m1, m2)
	redistest.MustUnlock(t, m2)
	redistest.MustLock(t, m1)
	if m1.Token() <= t1 {
		t.Errorf("token of a new Redis hold = %d, want more than %d", m1.Token(), t1)
	}
	redistest.MustUnlock(t, m1)
}

// TestLocalHandoff_count_bound_lets_other_process_in: after maxHandoffs
// hand-overs in a row the hold goes back to Redis, and the process that
// waits there gets it before the local waiters left.
func TestLocalHandoff_count_bound_lets_other_process_in(t *testing.T) {
	c, lcA, lcB, name := twoProcesses(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	opt := reentrant.WithLocalHandoff(2, time.Minute)
	a := make([]*reentrant.Mutex, 4)
	for i := range a {
		a[i] = reentrant.New(lcA, name, opt)
	}
	redistest.MustLock(t, a[0])
	b := reentrant.New(lcB, name, opt)
	gotB := redistest.LockAsync(ctx, b)
	waitAsleep(t, lcB, name, 1)
	got := make([]<-chan error, len(a))
	for i := 1; i < len(a); i++ {
		got[i] = redistest.LockAsync(ctx, a[i])
		waitLocal(t, a[0], i)
	}
	for i := range 3 { // two hand-overs, then a release in Redis
		redistest.MustUnlock(t, a[i])
		if i < 2 {
			if err := redistest.Receive(t, got[i+1], 10*time.Second, "a hand-over"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := redistest.Receive(t, gotB, 10*time.Second, "the other process's Lock"); err != nil {
		t.Fatal(err)
	}
	waitsForUnlock(t, b, got[3], 10*time.Second, "the fourth local Lock")
	redistest.MustUnlock(t, a[3])
	redistest.AssertClean(t, c, name)
}

// TestLocalHandoff_time_bound_lets_other_process_in: once the process has
// kept the hold for maxHold, the next Unlock releases it in Redis although
// a local Lock waits.
func TestLocalHandoff_time_bound_lets_other_process_in(t *testing.T) {
	_, lcA, lcB, name := twoProcesses(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	const maxHold = 20 * time.Millisecond
	opt := reentrant.WithLocalHandoff(1000, maxHold)
	a1, a2, b := reentrant.New(lcA, name, opt), reentrant.New(lcA, name, opt), reentrant.New(lcB, name, opt)
	redistest.MustLock(t, a1)
	taken := time.Now() // the hold was taken before this
	gotB := redistest.LockAsync(ctx, b)
	waitAsleep(t, lcB, name, 1)
	got2 := lockLocal(ctx, t, a2, 1)
	for time.Since(taken) <= maxHold {
		time.Sleep(maxHold / 4) // the clock must pass the bound
	}
	redistest.MustUnlock(t, a1)
	if err := redistest.Receive(t, gotB, 10*time.Second, "the other process's Lock"); err != nil {
		t.Fatal(err)
	}
	waitsForUnlock(t, b, got2, 10*time.Second, "the local Lock")
	redistest.MustUnlock(t, a2)
}

// TestLocalHandoff_lost_reaches_holder: after a hand-over, the loss of the
// process's hold closes the new holder's Lost, ends its Context, and its
// Unlock returns ErrLost; the former holder's signals stay quiet.
func TestLocalHandoff_lost_reaches_holder(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	m1, m2 := heldInCohort(t, lc, name)
	lost1, ctx1 := m1.Lost(), m1.Context(ctx)
	handOver(ctx, t, m1, m2)
	if !errors.Is(context.Cause(ctx1), lockkit.ErrNotHeld) {
		t.Errorf("m1's Context after its Unlock: cause %v, want ErrNotHeld", context.Cause(ctx1))
	}
	ctx2 := m2.Context(ctx)
	// Another owner frees the lock: the watchdog finds the hold gone.
	if ok, err := reentrant.New(lc, name).ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	lc.Watchdog().Check()
	redistest.Receive(t, m2.Lost(), 10*time.Second, "m2's lost signal")
	redistest.Receive(t, ctx2.Done(), 10*time.Second, "m2's Context")
	redistest.WantErr(t, context.Cause(ctx2), lockkit.ErrLost)
	redistest.WantErr(t, m2.Unlock(ctx), lockkit.ErrLost)
	if redistest.Closed(lost1) {
		t.Error("m1's lost signal closed, though m1 had handed its hold over")
	}
	// The lock works on.
	redistest.MustLock(t, m1)
	redistest.MustUnlock(t, m1)
	redistest.AssertClean(t, c, name)
}

// TestLocalHandoff_ctx_ends_in_local_wait: a Lock waiting in memory
// returns when its ctx ends, holding nothing, and the queue goes on.
func TestLocalHandoff_ctx_ends_in_local_wait(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	m1, m2, m3 := reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff)
	redistest.MustLock(t, m1)
	short, cancel := context.WithCancel(ctx)
	got2 := lockLocal(short, t, m2, 1)
	got3 := lockLocal(ctx, t, m3, 2)
	cancel()
	err := redistest.Receive(t, got2, 10*time.Second, "the cancelled Lock")
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.Canceled)
	if m2.Token() != 0 {
		t.Errorf("m2 holds token %d after its Lock failed", m2.Token())
	}
	if ok, err := m2.TryLock(ctx); ok || err != nil {
		t.Errorf("TryLock while another Mutex of the process holds = %v, %v; want false", ok, err)
	}
	redistest.MustUnlock(t, m1)
	if err := redistest.Receive(t, got3, 10*time.Second, "m3's Lock"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, m3)
	if ok, err := m2.TryLock(ctx); !ok || err != nil {
		t.Fatalf("TryLock on a free lock = %v, %v; want true", ok, err)
	}
	redistest.MustUnlock(t, m2)
	redistest.AssertClean(t, c, name)
}

// TestLocalHandoff_excludes_in_process_and_across_clients: 64 Mutexes of
// one Client and 8 of another (a second process, as Redis sees it) never
// hold the lock at once.
func TestLocalHandoff_excludes_in_process_and_across_clients(t *testing.T) {
	c, lcA, lcB, name := twoProcesses(t)
	ctx := redistest.Ctx(t, 2*time.Minute)
	opt := reentrant.WithLocalHandoff(8, 10*time.Millisecond)
	var lockers []redistest.Locker
	for range 64 {
		lockers = append(lockers, reentrant.New(lcA, name, opt))
	}
	for range 8 {
		lockers = append(lockers, reentrant.New(lcB, name, opt))
	}
	holds, err := redistest.Hammer(ctx, lockers, 20)
	if err != nil {
		t.Fatal(err)
	}
	if holds != 72*20 {
		t.Fatalf("%d holds, want %d", holds, 72*20)
	}
	redistest.AssertClean(t, c, name)
}

// TestLocalHandoff_excludes_across_processes: 2 processes × 64 goroutines
// increment one counter under the lock with a separate read and write.
func TestLocalHandoff_excludes_across_processes(t *testing.T) {
	redistest.CountRun{
		Child: "counter-cohort", Procs: 2, Goroutines: 64, Rounds: 10, Timeout: 2 * time.Minute,
	}.OnNewServer(t)
}

// TestLocalHandoff_commands_per_acquisition: with 16 Mutexes of one Client
// contending, most acquisitions are hand-overs; without cohort mode each
// takes at least an acquire and a release.
func TestLocalHandoff_commands_per_acquisition(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []lockkit.Option
		min, max float64 // commands per acquisition
	}{
		{"cohort", []lockkit.Option{handoff}, 0, 0.5},
		{"without", nil, 2, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := redistest.StartServer(t).Client(t)
			counter := redistest.CountCommands(c)
			lc := redistest.Lockkit(t, c)
			ctx := redistest.Ctx(t, time.Minute)
			name := redistest.Unique(t)
			var lockers []redistest.Locker
			for range 16 {
				lockers = append(lockers, reentrant.New(lc, name, tc.opts...))
			}
			holds, err := redistest.Hammer(ctx, lockers, 50)
			if err != nil {
				t.Fatal(err)
			}
			per := float64(counter.Total()) / float64(holds)
			t.Logf("%.3f commands per acquisition", per)
			if per < tc.min || per > tc.max {
				t.Errorf("%.2f commands per acquisition, want %.2f to %.2f", per, tc.min, tc.max)
			}
		})
	}
}

// oneProcess starts a redis-server and returns a client of it, a lockkit
// Client of that client and a fresh lock name.
func oneProcess(t *testing.T) (*redis.Client, *lockkit.Client, string) {
	t.Helper()
	_, c, lc, name := hookedProcess(t, nil)
	return c, lc, name
}

// hookedProcess is oneProcess with hook, unless nil, added to the client
// before the lockkit Client is made of it; it returns the server too, for
// clients without the hook.
func hookedProcess(t *testing.T, hook redis.Hook) (*redistest.Server, *redis.Client, *lockkit.Client, string) {
	t.Helper()
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	if hook != nil {
		c.AddHook(hook)
	}
	return srv, c, redistest.Lockkit(t, c), redistest.Unique(t)
}

// heldInCohort returns two Mutexes of lc and name in cohort mode, the
// first holding the lock.
func heldInCohort(t *testing.T, lc *lockkit.Client, name string) (holder, other *reentrant.Mutex) {
	t.Helper()
	holder, other = reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff)
	redistest.MustLock(t, holder)
	return holder, other
}

// freshHoldAfterLoss checks what follows the loss of holder's hold, whose
// token was lost, while waiter's Lock, whose error got carries, waited in
// memory behind it: within d holder's lost signal closes and waiter's Lock
// returns with a fresh hold from Redis, of a larger token; holder's Unlock
// with ctx then reports the loss.
func freshHoldAfterLoss(ctx context.Context, t *testing.T, holder, waiter *reentrant.Mutex, got <-chan error, lost int64, d time.Duration) {
	t.Helper()
	redistest.Receive(t, holder.Lost(), d, "the holder's lost signal")
	if err := redistest.Receive(t, got, d, "the waiter's Lock after the holder's hold was lost"); err != nil {
		t.Fatal(err)
	}
	if waiter.Token() <= lost {
		t.Errorf("the waiter's token %d after the lost hold's %d: want a fresh, larger one", waiter.Token(), lost)
	}
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
}

// twoProcesses starts a redis-server and returns a client of it, two
// lockkit Clients of that client (two processes, as Redis sees them) and a
// fresh lock name.
func twoProcesses(t *testing.T) (*redis.Client, *lockkit.Client, *lockkit.Client, string) {
	t.Helper()
	c := redistest.StartServer(t).Client(t)
	return c, redistest.Lockkit(t, c), redistest.Lockkit(t, c), redistest.Unique(t)
}

// TestLocalHandoff_lost_hold_lets_the_process_in: when the process's hold
// is lost while a Mutex of it holds the lock (another owner force-unlocked
// it), the Mutexes of the process that wait in memory are not kept out by
// the lost holder: one of them takes the lock from Redis, with a new
// token, while the lost holder's Unlock reports ErrLost. Without cohort
// mode a lost hold keeps nobody out, and WithLocalHandoff must not change
// that.
func TestLocalHandoff_lost_hold_lets_the_process_in(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	a, b := heldInCohort(t, lc, name)
	lost := a.Token()
	got := lockLocal(ctx, t, b, 1)
	if ok, err := reentrant.New(lc, name).ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	lc.Watchdog().Check()
	freshHoldAfterLoss(ctx, t, a, b, got, lost, 10*time.Second)
	redistest.WantHoldCount(t, b, 1)
	redistest.MustUnlock(t, b)
	redistest.MustLock(t, a) // a locks again after its loss
	redistest.MustUnlock(t, a)
	redistest.AssertClean(t, c, name)
}

// TestLocalHandoff_max_hold_ends_a_stuck_holder_for_the_process too:
// WithMaxHold promises that a stuck holder cannot keep the lock for ever.
// In cohort mode a holder that never unlocks must not keep the Mutexes of
// its own process out either once its hold ended: a Lock of another Mutex
// of the Client, with the same options, gets the lock.
func TestLocalHandoff_max_hold_ends_a_stuck_holder_for_the_process_too(t *testing.T) {
	_, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	opts := []lockkit.Option{handoff, lockkit.WithWatchdogTimeout(300 * time.Millisecond), lockkit.WithMaxHold(time.Second)}
	stuck, other := reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...)
	redistest.MustLock(t, stuck) // and never unlocked until the end
	if err := other.Lock(ctx); err != nil {
		t.Fatalf("Lock of another Mutex of the process after the stuck hold's maximum: %v", err)
	}
	redistest.WantErr(t, stuck.Unlock(ctx), lockkit.ErrLost, watchdog.ErrMaxHold)
	redistest.MustUnlock(t, other)
}

// TestLocalHandoff_trace_reports_the_Redis_hold checks what the Trace of a
// Mutex in cohort mode reports: the process's hold in Redis, once taken
// and once released, under the cohort's owner id; the re-entry, the
// hand-over and the wait in memory are not reported.
func TestLocalHandoff_trace_reports_the_Redis_hold(t *testing.T) {
	_, lc, name := oneProcess(t)
	var ev events
	opts := []lockkit.Option{handoff, lockkit.WithTrace(ev.trace())}
	ctx := redistest.Ctx(t, 30*time.Second)
	m1, m2 := reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...)
	redistest.MustLock(t, m1)
	redistest.MustLock(t, m1)
	got := lockLocal(ctx, t, m2, 1)
	redistest.MustUnlock(t, m1)
	redistest.MustUnlock(t, m1)
	if err := redistest.Receive(t, got, 10*time.Second, "m2's Lock"); err != nil {
		t.Fatal(err)
	}
	token := m2.Token()
	redistest.MustUnlock(t, m2)
	s := ev.snapshot()
	if len(s.acquired) != 1 || s.acquired[0].Reentry || s.acquired[0].Token != token || s.acquired[0].Lock.Name != name {
		t.Errorf("Acquired = %+v; want the one Redis hold, token %d", s.acquired, token)
	}
	if len(s.released) != 1 || !s.released[0].Ended || s.released[0].Err != nil ||
		len(s.acquired) == 1 && s.released[0].Lock.Owner != s.acquired[0].Lock.Owner {
		t.Errorf("Released = %+v; want the Redis hold's end, by the owner that took it", s.released)
	}
	if s.started != 0 || len(s.waits) != 0 {
		t.Errorf("waits reported: %d started, %+v; want none (m2 waited in memory)", s.started, s.waits)
	}
}

// TestLocalHandoff_without_reentry_waits_for_its_own_hold: with
// WithoutReentry a Mutex in cohort mode does not re-enter, as without
// cohort mode: its TryLock fails while it holds, a second Lock waits in
// memory until its own Unlock, and the count never exceeds 1.
func TestLocalHandoff_without_reentry_waits_for_its_own_hold(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	m := reentrant.New(lc, name, handoff, lockkit.WithoutReentry())
	redistest.MustLock(t, m)
	if ok, err := m.TryLock(ctx); ok || err != nil {
		t.Fatalf("TryLock by the holder = %v, %v; want false", ok, err)
	}
	got := lockLocal(ctx, t, m, 1)
	redistest.WantHoldCount(t, m, 1)
	redistest.MustUnlock(t, m)
	if err := redistest.Receive(t, got, 10*time.Second, "the second Lock"); err != nil {
		t.Fatal(err)
	}
	redistest.WantHoldCount(t, m, 1)
	redistest.MustUnlock(t, m)
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.AssertClean(t, c, name)
}

// TestWithLocalHandoff_as_a_Client_default: given to New, the option puts
// the Client's reentrant locks in cohort mode (a hand-over sends nothing),
// and the spin and fair locks of that Client pass it over.
func TestWithLocalHandoff_as_a_Client_default(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	lc := redistest.Lockkit(t, c, handoff)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	m1, m2 := reentrant.New(lc, name), reentrant.New(lc, name)
	redistest.MustLock(t, m1)
	got := lockLocal(ctx, t, m2, 1)
	counter := redistest.CountCommands(c)
	redistest.MustUnlock(t, m1)
	if err := redistest.Receive(t, got, 10*time.Second, "m2's Lock"); err != nil {
		t.Fatal(err)
	}
	if n := counter.Total(); n != 0 {
		t.Errorf("a hand-over with the Client default sent %d commands, want 0", n)
	}
	redistest.MustUnlock(t, m2)
	for _, m := range []*reentrant.Mutex{spin.New(lc, name+"-spin"), fair.New(lc, name+"-fair")} {
		redistest.MustLock(t, m)
		redistest.MustUnlock(t, m)
	}
}

// TestLocalHandoff_other_options_are_another_owner: Mutexes of one Client
// and name made with different options are in different cohorts, which
// exclude each other in Redis like any two owners.
func TestLocalHandoff_other_options_are_another_owner(t *testing.T) {
	for _, tt := range []struct {
		name string
		opt  lockkit.Option
	}{
		{"watchdog_timeout", lockkit.WithWatchdogTimeout(20 * time.Second)},
		{"without_reentry", lockkit.WithoutReentry()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, lc, name := oneProcess(t)
			ctx := redistest.Ctx(t, 30*time.Second)
			a := reentrant.New(lc, name, handoff)
			b := reentrant.New(lc, name, handoff, tt.opt)
			redistest.MustLock(t, a)
			if ok, err := b.TryLock(ctx); ok || err != nil {
				t.Fatalf("TryLock of a Mutex with other options = %v, %v; want false", ok, err)
			}
			got := redistest.LockAsync(ctx, b)
			waitAsleep(t, lc, name, 1) // b's cohort waits in Redis
			redistest.MustUnlock(t, a)
			if err := redistest.Receive(t, got, 10*time.Second, "b's Lock"); err != nil {
				t.Fatal(err)
			}
			redistest.MustUnlock(t, b)
			redistest.AssertClean(t, c, name)
		})
	}
}

// TestLocalHandoff_Close_leaves_the_hold_to_its_holder: Close reports the
// holder's hold lost and ends the Locks that wait in memory with
// ErrClosed, but, as without cohort mode, does not release the hold in
// Redis: the holder's Unlock still frees it.
func TestLocalHandoff_Close_leaves_the_hold_to_its_holder(t *testing.T) {
	c, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, 30*time.Second)
	a, b := heldInCohort(t, lc, name)
	got := lockLocal(ctx, t, b, 1)
	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, a.Lost(), 10*time.Second, "a's lost signal")
	redistest.WantErr(t, redistest.Receive(t, got, 10*time.Second, "b's Lock"), lockkit.ErrClosed)
	other := reentrant.New(redistest.Lockkit(t, c), name)
	if ok, err := other.IsLocked(ctx); !ok || err != nil {
		t.Fatalf("IsLocked after Close = %v, %v; want the hold left in Redis", ok, err)
	}
	redistest.WantErr(t, a.Unlock(ctx), lockkit.ErrLost, lockkit.ErrClosed)
	if ok, err := other.IsLocked(ctx); ok || err != nil {
		t.Fatalf("IsLocked after the holder's Unlock = %v, %v; want free", ok, err)
	}
}

// TestCommands_of_an_uncontended_lock: an uncontended Lock, TryLock and
// Unlock cost one command each, and a re-entry one; in cohort mode a
// re-entry and its Unlock cost none, the Redis hold's Lock, TryLock and
// last Unlock one each.
func TestCommands_of_an_uncontended_lock(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []lockkit.Option
		reentry int64 // commands of a re-entry and of its Unlock
	}{
		{"plain", nil, 1},
		{"cohort", []lockkit.Option{handoff}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, lc, name := oneProcess(t)
			m := reentrant.New(lc, name, tc.opts...)
			redistest.MustLock(t, m) // the scripts are loaded
			redistest.MustUnlock(t, m)
			counter := redistest.CountCommands(c)
			ctx := redistest.Ctx(t, 10*time.Second)
			want := func(what string, n int64) {
				t.Helper()
				if got := counter.Total(); got != n {
					t.Errorf("%s sent %d commands, want %d", what, got, n)
				}
				counter.Reset()
			}
			redistest.MustLock(t, m)
			want("Lock of a free lock", 1)
			redistest.MustLock(t, m)
			want("a re-entry", tc.reentry)
			redistest.MustUnlock(t, m)
			want("the re-entry's Unlock", tc.reentry)
			redistest.MustUnlock(t, m)
			want("the last Unlock", 1)
			if ok, err := m.TryLock(ctx); !ok || err != nil {
				t.Fatalf("TryLock of a free lock = %v, %v", ok, err)
			}
			want("TryLock of a free lock", 1)
			redistest.MustUnlock(t, m)
		})
	}
}

// TestLocalHandoff_calls_return_within_ctx_when_the_server_does_not_answer
// cuts the network to the server while a Mutex of the process holds the
// lock: a Lock of another Mutex of the process (waiting in memory), a
// TryLock from the Redis side and the holder's Unlock return within their
// ctx; once the network heals, the holder's Unlock in doubt is settled by
// calling it again, and the other Mutex gets the lock.
func TestLocalHandoff_calls_return_within_ctx_when_the_server_does_not_answer(t *testing.T) {
	p := redistest.StartProxy(t, redistest.StartServer(t).Addr())
	lc := redistest.Lockkit(t, redistest.Patient(t, p.Addr()))
	name := redistest.Unique(t)
	holder, m := reentrant.New(lc, name, handoff), reentrant.New(lc, name, handoff)
	other := reentrant.New(lc, name, handoff, lockkit.WithHolderInfo()) // another cohort
	redistest.MustLock(t, holder)
	callsReturnWithinACut(t, p, holder, m, other) // m waits in memory, other is another cohort
	redistest.MustLock(t, other)
	redistest.MustUnlock(t, other)
}
