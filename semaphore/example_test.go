package semaphore_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/semaphore"
)

// Ten workers, which may run in other processes, call an API that allows
// three calls at once: each takes a permit for the duration of its call.
func Example() {
	ctx := context.Background()
	client, closeRedis := embeddedClient()
	defer closeRedis()

	var calling, most atomic.Int32
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			api := semaphore.New(client, "partner-api", 3)
			p, err := api.Acquire(ctx, 1)
			if err != nil {
				fmt.Println("acquire:", err)
				return
			}
			defer p.Release(ctx)
			select {
			case <-p.Lost():
				return // the permit's lease could not be renewed: stop
			default:
			}
			n := calling.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			calling.Add(-1)
		})
	}
	wg.Wait()
	free, _ := semaphore.New(client, "partner-api", 3).Available(ctx)
	fmt.Println("at most 3 calls at once:", most.Load() <= 3)
	fmt.Println("permits free:", free)
	// Output:
	// at most 3 calls at once: true
	// permits free: 3
}

// SetPermits changes the number of permits for every process at run time;
// holders beyond a smaller number keep their permits until they release
// them.
func ExampleSemaphore_SetPermits() {
	ctx := context.Background()
	client, closeRedis := embeddedClient()
	defer closeRedis()

	s := semaphore.New(client, "exports", 2)
	p, _ := s.Acquire(ctx, 2)
	_ = s.SetPermits(ctx, 1)
	free, _ := s.Available(ctx)
	fmt.Println("free after shrinking under 2 holders:", free)
	_ = p.Release(ctx)
	free, _ = s.Available(ctx)
	n, _ := s.Permits(ctx)
	fmt.Printf("free after the release: %d of %d\n", free, n)
	// Output:
	// free after shrinking under 2 holders: 0
	// free after the release: 1 of 1
}

// embeddedClient returns a Client on a fresh embedded Redis (miniredis),
// as a real server would serve it, and the function that closes both.
func embeddedClient() (*lockkit.Client, func()) {
	mr, _ := miniredis.Run()
	client := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()}))
	return client, func() { client.Close(); client.Redis().Close(); mr.Close() }
}
