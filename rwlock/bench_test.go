package rwlock_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
)

// benchOwners is the number of goroutines, each its own owner, that share
// one lock in the benchmarks.
const benchOwners = 64

// benchClient starts a redis-server and returns a Client of it whose pool
// serves every goroutine at once.
func benchClient(b *testing.B) *lockkit.Client {
	s := redistest.StartServer(b)
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), PoolSize: 2 * benchOwners})
	b.Cleanup(func() { _ = c.Close() })
	return redistest.Lockkit(b, c)
}

// BenchmarkRLock_64_readers measures read acquisitions (RLock + RUnlock)
// per second by 64 owners sharing one lock.
func BenchmarkRLock_64_readers(b *testing.B) {
	c := benchClient(b)
	name := redistest.Unique(b)
	redistest.BenchContended(b, benchOwners, 0, func() redistest.Locker { return rwlock.New(c, name).RLocker() }, nil)
}

// BenchmarkLock_64_writers measures write acquisitions per second by 64
// owners contending for one lock.
func BenchmarkLock_64_writers(b *testing.B) {
	c := benchClient(b)
	name := redistest.Unique(b)
	redistest.BenchContended(b, benchOwners, 0, func() redistest.Locker { return rwlock.New(c, name) }, nil)
}

// BenchmarkReentrant_64_owners is the baseline: the reentrant (exclusive)
// lock's acquisitions per second by 64 owners contending for one lock.
func BenchmarkReentrant_64_owners(b *testing.B) {
	c := benchClient(b)
	name := redistest.Unique(b)
	redistest.BenchContended(b, benchOwners, 0, func() redistest.Locker { return reentrant.New(c, name) }, nil)
}

// BenchmarkLock_wait_under_64_readers measures how long a writer waits in
// Lock while 64 owners keep taking and releasing the read lock, each hold
// lasting 1 ms, and reports its p50 and p99 with the read rate achieved.
// (Without writer preference the writer would wait until the readers
// stopped, so there is no such variant.)
func BenchmarkLock_wait_under_64_readers(b *testing.B) {
	c := benchClient(b)
	name := redistest.Unique(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var reads atomic.Int64
	var wg sync.WaitGroup
	for range benchOwners {
		r := rwlock.New(c, name)
		wg.Go(func() {
			for ctx.Err() == nil {
				if err := r.RLock(ctx); err != nil {
					return // ctx ended
				}
				reads.Add(1)
				time.Sleep(time.Millisecond)
				if err := r.RUnlock(context.Background()); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	w := rwlock.New(c, name)
	for reads.Load() < 10*benchOwners { // let the load settle
		time.Sleep(time.Millisecond)
	}
	waits := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start, readsBefore := time.Now(), reads.Load()
	for range b.N {
		t0 := time.Now()
		if err := w.Lock(ctx); err != nil {
			b.Fatal(err)
		}
		waits = append(waits, time.Since(t0))
		if err := w.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
		time.Sleep(time.Millisecond) // let the readers back in
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	wg.Wait()
	slices.Sort(waits)
	q := func(p float64) float64 {
		return float64(waits[int(p*float64(len(waits)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.5), "p50-wait-ms")
	b.ReportMetric(q(0.99), "p99-wait-ms")
	b.ReportMetric(float64(reads.Load()-readsBefore)/elapsed.Seconds(), "reads/s")
}
