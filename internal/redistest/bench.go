package redistest

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// BenchLockUnlock measures one owner locking and unlocking the free lock l.
// It takes and frees l once first, so that its scripts are loaded, then
// does so b.N times. It reports how long Lock took as by [ReportWaits],
// the allocations per cycle, this process's CPU time per cycle as
// client-cpu-us/op and, when counter is not nil, the commands counter saw
// per cycle as cmds/op; when counter was made by CountCommands from a
// client of one server, that server's CPU time per cycle, as
// redis-cpu-us/op, and the commands it ran per cycle, those inside
// scripts included and the scripts themselves not, as redis-calls/op.
func BenchLockUnlock(b *testing.B, l Locker, counter *Counter) {
	BenchLockUnlockCtx(b, context.Background(), l, counter)
}

// BenchLockUnlockCtx is BenchLockUnlock with ctx for every Lock and
// Unlock: one that can end, say, to measure what that costs.
func BenchLockUnlockCtx(b *testing.B, ctx context.Context, l Locker, counter *Counter) {
	b.ReportAllocs()
	warmUp(b, l)
	if counter != nil {
		counter.server.begin(b)
		counter.Reset()
	}
	var cpu clientCPU
	cpu.begin()
	var waits []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := l.Lock(ctx); err != nil {
			b.Fatal(err)
		}
		waits = append(waits, time.Since(t0))
		if err := l.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b, b.N, "client-cpu-us/op")
	if counter != nil {
		b.ReportMetric(float64(counter.Total())/float64(b.N), "cmds/op")
		counter.server.report(b, b.N)
	}
	ReportWaits(b, waits)
}

// BenchContended has owners goroutines, each with a lock of its own from
// newLock, share b.N acquisitions of one lock, holding it for hold each
// time. It takes and frees one more lock from newLock first, so that the
// scripts are loaded. It reports acquisitions per second as acq/s, the
// allocations per acquisition, this process's CPU time per acquisition
// as client-cpu-us/acq and, when counter is not nil, the commands counter
// saw per acquisition (Lock and Unlock) as cmds/acq, and the server's CPU
// time and commands per acquisition as BenchLockUnlock does. It returns
// how long each Lock call waited, for [ReportWaits].
func BenchContended(b *testing.B, owners int, hold time.Duration, newLock func() Locker, counter *Counter) []time.Duration {
	ctx := context.Background()
	b.ReportAllocs()
	warmUp(b, newLock())
	locks := make([]Locker, owners)
	for i := range locks {
		locks[i] = newLock()
	}
	if counter != nil {
		counter.server.begin(b)
		counter.Reset()
	}
	var (
		left  atomic.Int64
		mu    sync.Mutex
		waits = make([]time.Duration, 0, b.N)
		wg    sync.WaitGroup
	)
	left.Store(int64(b.N))
	b.ResetTimer()
	var cpu clientCPU
	cpu.begin()
	start := time.Now()
	for _, m := range locks {
		wg.Go(func() {
			var mine []time.Duration
			defer func() {
				mu.Lock()
				waits = append(waits, mine...)
				mu.Unlock()
			}()
			for left.Add(-1) >= 0 {
				t0 := time.Now()
				if err := m.Lock(ctx); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(t0))
				if hold > 0 {
					time.Sleep(hold) // the work done under the lock
				}
				if err := m.Unlock(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "acq/s")
	cpu.report(b, b.N, "client-cpu-us/acq")
	if counter != nil {
		b.ReportMetric(float64(counter.Total())/float64(b.N), "cmds/acq")
		counter.server.report(b, b.N)
	}
	return waits
}

// ReportWaits reports the median and the 99th percentile of waits, in
// milliseconds, as p50-ms and p99-ms. It sorts waits, and reports nothing
// when there are none.
func ReportWaits(b *testing.B, waits []time.Duration) {
	if len(waits) == 0 {
		return
	}
	slices.Sort(waits)
	q := func(p float64) float64 {
		return float64(waits[int(p*float64(len(waits)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

// warmUp takes and frees l once, so that the scripts it runs are loaded
// before the measurement starts.
func warmUp(b *testing.B, l Locker) {
	ctx := context.Background()
	if err := l.Lock(ctx); err != nil {
		b.Fatal(err)
	}
	if err := l.Unlock(ctx); err != nil {
		b.Fatal(err)
	}
}

// floorScript is the cheapest script: what a lock's round trip costs
// before the lock does anything.
var floorScript = redis.NewScript("return 1")

// Floor is the floor the benchmarks measure a lock against: a Locker whose
// Lock and Unlock each run the script "return 1" once (EVALSHA), on one
// key, and exclude nobody. Two round trips per cycle, as an uncontended
// Lock+Unlock of a lockkit lock.
type Floor struct {
	C redis.UniversalClient
}

// Lock runs the floor's script once.
func (f Floor) Lock(ctx context.Context) error { return f.run(ctx) }

// Unlock runs the floor's script once.
func (f Floor) Unlock(ctx context.Context) error { return f.run(ctx) }

func (f Floor) run(ctx context.Context) error {
	return floorScript.Run(ctx, f.C, []string{"floor"}).Err()
}
