package reentrant_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// BenchmarkMutex_uncontended locks and unlocks one free lock: two round
// trips per cycle.
func BenchmarkMutex_uncontended(b *testing.B) {
	c := redistest.StartServer(b).Client(b)
	counter := redistest.NewCounter()
	c.AddHook(counter.Hook())
	m := reentrant.New(c, redistest.Unique(b), reentrant.WithLease(time.Minute))
	ctx := context.Background()
	counter.Reset()
	b.ResetTimer()
	for b.Loop() {
		if err := m.Lock(ctx); err != nil {
			b.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(counter.Total())/float64(b.N), "cmds/op")
}

// BenchmarkMutex_contended runs 64 goroutines, each its own owner, locking
// one key and holding it for hold. It reports acquisitions per second,
// commands sent per acquisition and the p50/p99 wait for Lock.
func BenchmarkMutex_contended(b *testing.B) {
	for _, hold := range []time.Duration{0, time.Millisecond} {
		b.Run(fmt.Sprintf("G=64/hold=%v", hold), func(b *testing.B) {
			c := redistest.StartServer(b).Client(b)
			counter := redistest.NewCounter()
			c.AddHook(counter.Hook())
			name := redistest.Unique(b)
			waits := contend(b, 64, hold, func() locker { return reentrant.New(c, name) }, counter)
			reportWaits(b, waits)
		})
	}
}

type locker interface {
	Lock(context.Context) error
	Unlock(context.Context) error
}

// contend has g goroutines share b.N acquisitions of one lock and returns
// how long each Lock call waited.
func contend(b *testing.B, g int, hold time.Duration, newLock func() locker, counter *redistest.Counter) []time.Duration {
	var (
		left  atomic.Int64
		mu    sync.Mutex
		waits = make([]time.Duration, 0, b.N)
		wg    sync.WaitGroup
	)
	left.Store(int64(b.N))
	ctx := context.Background()
	counter.Reset()
	b.ResetTimer()
	start := time.Now()
	for range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := newLock()
			var mine []time.Duration
			for left.Add(-1) >= 0 {
				t0 := time.Now()
				if err := m.Lock(ctx); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(t0))
				if hold > 0 {
					time.Sleep(hold)
				}
				if err := m.Unlock(ctx); err != nil {
					b.Error(err)
					return
				}
			}
			mu.Lock()
			waits = append(waits, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "acq/s")
	b.ReportMetric(float64(counter.Total())/float64(b.N), "cmds/acq")
	return waits
}

func reportWaits(b *testing.B, waits []time.Duration) {
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
