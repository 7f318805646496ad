package fair_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
)

// Example takes a fair lock, then has three waiters queue for it: they
// take turns in the order they joined the queue.
func Example() {
	mr, _ := miniredis.Run()
	locks := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()})) // one Client per Redis, shared by its locks
	defer func() { locks.Close(); locks.Redis().Close(); mr.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // bounds every wait
	defer cancel()

	first := fair.New(locks, "jobs")
	if err := first.Lock(ctx); err != nil {
		fmt.Println("lock:", err)
		return
	}
	fmt.Println("locked with a fencing token:", first.Token() > 0)
	turns := make(chan string, 3)
	var wg sync.WaitGroup
	for _, name := range []string{"alice", "bob", "carol"} {
		m := fair.New(locks, "jobs", lockkit.WithOwner(name))
		wg.Go(func() {
			if err := m.Lock(ctx); err != nil {
				fmt.Println("lock:", err)
				return
			}
			turns <- name
			_ = m.Unlock(ctx)
		})
		// Let name join the queue before the next one starts.
		for locks.Redis().ZScore(ctx, "lockkit:{jobs}:waiters", name).Err() != nil {
			time.Sleep(time.Millisecond)
		}
	}
	if err := first.Unlock(ctx); err != nil {
		fmt.Println("unlock:", err)
	}
	wg.Wait()
	close(turns)
	for name := range turns {
		fmt.Println(name)
	}
	// Output:
	// locked with a fencing token: true
	// alice
	// bob
	// carol
}

func ExampleMutex_TryLock() {
	locks, closeRedis := embeddedClient()
	defer closeRedis()

	holder := fair.New(locks, "report")
	ctx := context.Background()
	_ = holder.Lock(ctx)

	m := fair.New(locks, "report")
	ok, _ := m.TryLock(ctx) // fails, and does not join the queue
	fmt.Println("while held:", ok)

	_ = holder.Unlock(ctx)
	ok, _ = m.TryLock(ctx) // nobody holds it or waits for it
	fmt.Println("once free:", ok)
	_ = m.Unlock(ctx)
	// Output:
	// while held: false
	// once free: true
}

// ExampleWithWaiterTimeout sets how soon the queue gets past a waiter whose
// process died: its place is dropped two seconds after its last attempt.
// Given to lockkit.New instead, it would be the default of every fair lock
// of the Client.
func ExampleWithWaiterTimeout() {
	locks, closeRedis := embeddedClient()
	defer closeRedis()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	m := fair.New(locks, "nightly-export", fair.WithWaiterTimeout(2*time.Second))
	if err := m.Lock(ctx); err != nil {
		fmt.Println("lock:", err)
		return
	}
	defer m.Unlock(ctx)
	fmt.Println("exporting")
	// Output: exporting
}

// embeddedClient returns a Client on a fresh embedded Redis (miniredis),
// as a real server would serve it, and the function that closes both.
// Example shows the same set-up written out.
func embeddedClient() (*lockkit.Client, func()) {
	mr, _ := miniredis.Run()
	client := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()}))
	return client, func() { client.Close(); client.Redis().Close(); mr.Close() }
}
