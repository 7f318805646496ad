package spin_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

// locker is what the benchmarks need of a lock.
type locker interface {
	Lock(context.Context) error
	Unlock(context.Context) error
}

// BenchmarkLock_uncontended measures one owner locking and unlocking a
// free lock: two round trips.
func BenchmarkLock_uncontended(b *testing.B) {
	c := redistest.StartServer(b).Client(b)
	counter := redistest.NewCounter()
	c.AddHook(counter.Hook())
	ctx := context.Background()
	m := spin.New(c, redistest.Unique(b))
	if err := m.Lock(ctx); err != nil { // load the scripts
		b.Fatal(err)
	}
	if err := m.Unlock(ctx); err != nil {
		b.Fatal(err)
	}
	counter.Reset()
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

// BenchmarkLock_contended has several owners, one goroutine each, take one
// lock b.N times in all, holding it for 100 µs each time, and reports the
// commands sent per acquisition (attempts, releases, renewals; SUBSCRIBE
// is invisible to client hooks and spin never sends it). The reentrant
// lock under the same load is measured for comparison.
func BenchmarkLock_contended(b *testing.B) {
	kinds := []struct {
		name string
		new  func(c redis.UniversalClient, name string) locker
	}{
		{"spin", func(c redis.UniversalClient, n string) locker { return spin.New(c, n) }},
		{"reentrant", func(c redis.UniversalClient, n string) locker { return reentrant.New(c, n) }},
	}
	s := redistest.StartServer(b)
	for _, kind := range kinds {
		for _, owners := range []int{2, 8, 32} {
			b.Run(fmt.Sprintf("%s/owners=%d", kind.name, owners), func(b *testing.B) {
				benchContended(b, s, owners, func(c redis.UniversalClient, n string) locker { return kind.new(c, n) })
			})
		}
	}
}

func benchContended(b *testing.B, s *redistest.Server, owners int, newLock func(redis.UniversalClient, string) locker) {
	const hold = 100 * time.Microsecond
	c := s.Client(b)
	counter := redistest.NewCounter()
	c.AddHook(counter.Hook())
	ctx := context.Background()
	name := redistest.Unique(b)
	warm := newLock(c, name)
	if err := warm.Lock(ctx); err != nil {
		b.Fatal(err)
	}
	if err := warm.Unlock(ctx); err != nil {
		b.Fatal(err)
	}
	counter.Reset()
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	errs := make(chan error, owners)
	b.ResetTimer()
	for range owners {
		wg.Go(func() {
			m := newLock(c, name)
			for left.Add(-1) >= 0 {
				if err := m.Lock(ctx); err != nil {
					errs <- err
					return
				}
				time.Sleep(hold)
				if err := m.Unlock(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ReportMetric(float64(counter.Total())/float64(b.N), "cmds/acq")
}
