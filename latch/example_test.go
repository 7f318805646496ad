package latch_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/latch"
)

// A coordinator waits for three workers, which may run in other
// processes: each counts the latch down when its part is done.
func Example() {
	ctx := context.Background()
	client, closeRedis := embeddedClient()
	defer closeRedis()

	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			// A worker, with a Latch value of its own.
			done := latch.New(client, "import:2024-06", 3)
			if _, err := done.CountDown(ctx); err != nil {
				fmt.Println("count down:", err)
			}
		})
	}

	all := latch.New(client, "import:2024-06", 3)
	if err := all.Await(ctx); err != nil {
		fmt.Println("await:", err)
		return
	}
	n, _ := all.Count(ctx)
	fmt.Println("every part done; count left:", n)
	wg.Wait()
	// Output:
	// every part done; count left: 0
}

// embeddedClient returns a Client on a fresh embedded Redis (miniredis),
// as a real server would serve it, and the function that closes both.
func embeddedClient() (*lockkit.Client, func()) {
	mr, _ := miniredis.Run()
	client := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()}))
	return client, func() { client.Close(); client.Redis().Close(); mr.Close() }
}
