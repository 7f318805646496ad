package multilock_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// BenchmarkMultiLock_uncontended locks and unlocks a MultiLock of n free
// reentrant locks on one server: n acquires and n releases.
func BenchmarkMultiLock_uncontended(b *testing.B) {
	s := redistest.StartServer(b)
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("locks=%d", n), func(b *testing.B) {
			c := s.Client(b)
			counter := redistest.NewCounter()
			c.AddHook(counter.Hook())
			var locks []multilock.Locker
			for range n {
				locks = append(locks, reentrant.New(c, redistest.Unique(b)))
			}
			benchLockUnlock(b, multilock.New(locks), counter)
		})
	}
}

// BenchmarkRedLock_uncontended locks and unlocks a free RedLock over n
// masters: one acquire and one release per node, sent to all at once.
func BenchmarkRedLock_uncontended(b *testing.B) {
	for _, n := range []int{3, 5} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			counter := redistest.NewCounter()
			var clients []redis.UniversalClient
			for _, s := range redistest.StartMasters(b, n) {
				c := s.Client(b)
				c.AddHook(counter.Hook())
				clients = append(clients, c)
			}
			benchLockUnlock(b, multilock.NewRedLock(clients, redistest.Unique(b)), counter)
		})
	}
}

func benchLockUnlock(b *testing.B, l multilock.Locker, counter *redistest.Counter) {
	ctx := context.Background()
	if err := l.Lock(ctx); err != nil { // load the scripts
		b.Fatal(err)
	}
	if err := l.Unlock(ctx); err != nil {
		b.Fatal(err)
	}
	counter.Reset()
	for b.Loop() {
		if err := l.Lock(ctx); err != nil {
			b.Fatal(err)
		}
		if err := l.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(counter.Total())/float64(b.N), "cmds/op")
}

// BenchmarkRedLock_contended has 4 owners take one RedLock over 5 masters
// b.N times in all, holding it for 100 µs, and reports the commands sent
// per acquisition over all nodes.
func BenchmarkRedLock_contended(b *testing.B) {
	const owners, hold = 4, 100 * time.Microsecond
	counter := redistest.NewCounter()
	var clients []redis.UniversalClient
	for _, s := range redistest.StartMasters(b, 5) {
		c := s.Client(b)
		c.AddHook(counter.Hook())
		clients = append(clients, c)
	}
	ctx := context.Background()
	name := redistest.Unique(b)
	warm := multilock.NewRedLock(clients, name)
	if err := warm.Lock(ctx); err != nil {
		b.Fatal(err)
	}
	if err := warm.Unlock(ctx); err != nil {
		b.Fatal(err)
	}
	counter.Reset()
	var left atomic.Int64
	left.Store(int64(b.N))
	errs := make(chan error, owners)
	var wg sync.WaitGroup
	b.ResetTimer()
	for range owners {
		wg.Go(func() {
			r := multilock.NewRedLock(clients, name)
			for left.Add(-1) >= 0 {
				if err := r.Lock(ctx); err != nil {
					errs <- err
					return
				}
				time.Sleep(hold)
				if err := r.Unlock(ctx); err != nil {
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
