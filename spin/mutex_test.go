package spin_test

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

// hang bounds every wait that must end; reaching it means the code hangs.
const hang = 20 * time.Second

func TestMain(m *testing.M) {
	redistest.Main(m, redistest.Children{
		"spin-hammer": redistest.CountingChild(func(clients []redis.UniversalClient, name string) redistest.TokenLocker {
			return spin.New(lockkit.New(clients[0]), name)
		}),
	})
}

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Of("spin", fastSpin))
}

func TestConformance_without_reentry(t *testing.T) {
	conformance.RunWithoutReentry(t, conformance.Of("spin", fastSpin))
}

// fastSpin is a spin lock whose backoff is short enough for the tests.
func fastSpin(c *lockkit.Client, name string, opts ...lockkit.Option) *spin.Mutex {
	return spin.New(c, name, append([]lockkit.Option{spin.WithBackoff(time.Millisecond, 8*time.Millisecond)}, opts...)...)
}

func TestWithBackoff_invalid_returns_ErrInvalid(t *testing.T) {
	_, c := redistest.Mini(t)
	lc := redistest.Lockkit(t, c)
	cases := []struct {
		name string
		opt  lockkit.Option
	}{
		{"zero floor", spin.WithBackoff(0, time.Second)},
		{"negative floor", spin.WithBackoff(-time.Millisecond, time.Second)},
		{"floor above cap", spin.WithBackoff(2*time.Second, time.Second)},
		{"exponential zero floor", spin.WithExponentialBackoff(0, time.Second, 2)},
		{"exponential floor above cap", spin.WithExponentialBackoff(2*time.Second, time.Second, 2)},
		{"exponential multiplier below 1", spin.WithExponentialBackoff(time.Millisecond, time.Second, 0.5)},
		{"exponential NaN multiplier", spin.WithExponentialBackoff(time.Millisecond, time.Second, math.NaN())},
		{"exponential infinite multiplier", spin.WithExponentialBackoff(time.Millisecond, time.Second, math.Inf(1))},
		{"constant zero", spin.WithConstantBackoff(0)},
		{"constant negative", spin.WithConstantBackoff(-time.Second)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			redistest.WantErr(t, spin.New(lc, "x", tc.opt).Lock(context.Background()), lockkit.ErrInvalid)
		})
	}
	// WithBackoff belongs to spin locks: a reentrant lock refuses it…
	redistest.WantErr(t, reentrant.New(lc, "x", spin.WithBackoff(time.Millisecond, time.Second)).Lock(context.Background()), lockkit.ErrInvalid)
	// …but as a Client default it only sets the default of spin locks.
	withDefault := redistest.Lockkit(t, c, spin.WithBackoff(time.Millisecond, time.Second))
	m := reentrant.New(withDefault, redistest.Unique(t))
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
}

// TestLock_backoff_policies_sleep_their_bound: with an exact policy every
// sleep between a waiter's attempts lasts its whole bound (a timer never
// fires early), so the attempts a wait made are bounded by how long it
// waited: n attempts took at least the sum of the first n-1 bounds.
func TestLock_backoff_policies_sleep_their_bound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opt   lockkit.Option
		bound func(n int) time.Duration
	}{
		{"constant", spin.WithConstantBackoff(20 * time.Millisecond), func(int) time.Duration { return 20 * time.Millisecond }},
		{"exponential", spin.WithExponentialBackoff(5*time.Millisecond, 80*time.Millisecond, 3), func(n int) time.Duration {
			return min(80*time.Millisecond, []time.Duration{5, 15, 45, 135}[min(n, 3)]*time.Millisecond)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := redistest.StartServer(t)
			name := redistest.Unique(t)
			holder := spin.New(redistest.Lockkit(t, s.Client(t)), name)
			c := s.Client(t)
			counter := redistest.CountCommands(c)
			waiter := spin.New(redistest.Lockkit(t, c), name, tc.opt)
			redistest.MustLock(t, waiter) // loads the scripts
			redistest.MustUnlock(t, waiter)
			redistest.MustLock(t, holder)
			got := make(chan error, 1)
			counter.Reset()
			start := time.Now()
			go func() { got <- waiter.Lock(redistest.Ctx(t, hang)) }()
			redistest.Eventually(t, hang, "the waiter to try a few times", func() bool { return counter.Scripts() >= 4 })
			redistest.MustUnlock(t, holder)
			if err := redistest.Receive(t, got, hang, "the waiter's Lock"); err != nil {
				t.Fatal(err)
			}
			waited, attempts := time.Since(start), int(counter.Scripts())
			var slept time.Duration
			for n := range attempts - 1 {
				slept += tc.bound(n)
			}
			if slept > waited {
				t.Fatalf("%d attempts in %v: their sleeps alone take %v", attempts, waited, slept)
			}
			redistest.MustUnlock(t, waiter)
		})
	}
}

// TestLock_sleep_never_outlasts_holder_lease shows that a waiter whose
// backoff would sleep for an hour still takes the lock once the holder's
// lease ends: each sleep is cut to the lease the attempt reported.
func TestLock_sleep_never_outlasts_holder_lease(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	lc := redistest.Lockkit(t, c)
	name := redistest.Unique(t)
	a := spin.New(lc, name, lockkit.WithLease(150*time.Millisecond))
	b := spin.New(lc, name, spin.WithBackoff(time.Hour, time.Hour))
	redistest.MustLock(t, a)
	// Without the cut, the first sleep alone would outlast MustLock's
	// bound with a probability above 0.99.
	redistest.MustLock(t, b)
	redistest.MustUnlock(t, b)
	redistest.AssertClean(t, c, name)
}

// expectedSleep returns the mean total sleep of a Lock call that failed k
// attempts: the n-th sleep is uniform in [0, min(cap, floor·2ⁿ)).
func expectedSleep(k int, floor, cap time.Duration) time.Duration {
	var sum time.Duration
	bound := floor
	for range k {
		sum += bound / 2
		bound = min(2*bound, cap)
	}
	return sum
}

// TestLock_contended_attempts_are_paced_by_backoff has eight owners take
// one lock 25 times each, holding it for 2 ms, and counts, per Lock call, the attempts it sent
// (through a go-redis hook on each owner's client) and the time it waited.
//
// A Lock that failed k attempts has slept, on average, expectedSleep(k),
// and it cannot have slept longer than it waited. Summed over all calls the
// realised sleeps stay close to their mean, so the mean may exceed three
// times the total wait only if waiters attempt faster than the backoff
// allows (the allowance of two caps covers small samples). This bounds the
// commands per acquisition under contention by the wait alone; the test
// logs the figure.
func TestLock_contended_attempts_are_paced_by_backoff(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	s := redistest.StartServer(t)
	name := redistest.Unique(t)
	const owners, rounds = 8, 25
	const floor, cap = spin.DefaultBackoffFloor, spin.DefaultBackoffCap
	const hold = 2 * time.Millisecond

	type result struct {
		attempts, commands int64
		expected, waited   time.Duration
		err                error
	}
	results := make(chan result, owners)
	var start sync.WaitGroup
	start.Add(1)
	for range owners {
		c := s.Client(t)
		counter := redistest.CountCommands(c)
		go func(c *redis.Client) {
			var r result
			defer func() { results <- r }()
			m := spin.New(redistest.Lockkit(t, c), name)
			// Load the scripts so that no NOSCRIPT retry is counted.
			if r.err = m.Lock(ctx); r.err != nil {
				return
			}
			if r.err = m.Unlock(ctx); r.err != nil {
				return
			}
			counter.Reset()
			start.Wait()
			for range rounds {
				before := counter.Scripts()
				t0 := time.Now()
				if r.err = m.Lock(ctx); r.err != nil {
					return
				}
				r.waited += time.Since(t0)
				k := counter.Scripts() - before
				r.attempts += k
				r.expected += expectedSleep(int(k-1), floor, cap)
				time.Sleep(hold) // the work done under the lock
				if r.err = m.Unlock(ctx); r.err != nil {
					return
				}
			}
			r.commands = counter.Total()
		}(c)
	}
	start.Done()
	var total result
	for range owners {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		total.attempts += r.attempts
		total.commands += r.commands
		total.expected += r.expected
		total.waited += r.waited
	}
	acq := int64(owners * rounds)
	t.Logf("%d owners, %d acquisitions: %.2f attempts and %.2f commands per acquisition, mean wait %v",
		owners, acq, float64(total.attempts)/float64(acq), float64(total.commands)/float64(acq),
		total.waited/time.Duration(acq))
	if total.expected > 3*total.waited+2*cap {
		t.Fatalf("waiters sent %d attempts, which at the backoff's pace take %v on average, in %v of waiting",
			total.attempts, total.expected, total.waited)
	}
	redistest.AssertClean(t, s.Client(t), name)
}

// TestLock_excludes_across_processes runs three processes that each take
// the lock 30 times to increment a counter with a non-atomic read and
// write; any overlap would lose an increment or reorder fencing tokens.
func TestLock_excludes_across_processes(t *testing.T) {
	redistest.CountRun{
		Child: "spin-hammer", Procs: 3, Goroutines: 1, Rounds: 30, Fenced: true, Timeout: time.Minute,
	}.OnNewServer(t)
}

// BenchmarkLock_uncontended measures one owner locking and unlocking a
// free lock: two round trips.
func BenchmarkLock_uncontended(b *testing.B) {
	c := redistest.StartServer(b).Client(b)
	counter := redistest.CountCommands(c)
	redistest.BenchLockUnlock(b, spin.New(redistest.Lockkit(b, c), redistest.Unique(b)), counter)
}

// BenchmarkLock_contended has several owners, one goroutine each, take one
// lock b.N times in all, holding it for 100 µs each time, and reports the
// commands sent per acquisition (attempts, releases, renewals; SUBSCRIBE
// is invisible to client hooks and spin never sends it). The reentrant
// lock under the same load is measured for comparison.
func BenchmarkLock_contended(b *testing.B) {
	const hold = 100 * time.Microsecond
	kinds := []struct {
		name string
		new  func(c *lockkit.Client, name string) redistest.Locker
	}{
		{"spin", func(c *lockkit.Client, n string) redistest.Locker { return spin.New(c, n) }},
		{"reentrant", func(c *lockkit.Client, n string) redistest.Locker { return reentrant.New(c, n) }},
	}
	s := redistest.StartServer(b)
	for _, kind := range kinds {
		for _, owners := range []int{2, 8, 32} {
			b.Run(fmt.Sprintf("%s/owners=%d", kind.name, owners), func(b *testing.B) {
				c := s.Client(b)
				counter := redistest.CountCommands(c)
				lc := redistest.Lockkit(b, c)
				name := redistest.Unique(b)
				redistest.BenchContended(b, owners, hold, func() redistest.Locker { return kind.new(lc, name) }, counter)
			})
		}
	}
}

// TestLock_uncontended_is_one_command: a free lock is taken by the first
// attempt, one script call, without waiting or subscribing, and released
// by one more.
func TestLock_uncontended_is_one_command(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	counter := redistest.CountCommands(c)
	// A lease long enough that no renewal is due while the test runs.
	m := spin.New(redistest.Lockkit(t, c), redistest.Unique(t), lockkit.WithWatchdogTimeout(time.Hour))
	redistest.MustLock(t, m) // loads the scripts
	redistest.MustUnlock(t, m)
	counter.Reset()
	redistest.MustLock(t, m)
	if n := counter.Total(); n != 1 {
		t.Fatalf("an uncontended Lock sent %d commands, want 1", n)
	}
	redistest.MustUnlock(t, m)
	if n := counter.Total(); n != 2 {
		t.Fatalf("an uncontended Lock and Unlock sent %d commands, want 2", n)
	}
}
