package spin_test

import (
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/spin"
)

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
