package spin_test

import (
	"context"
	"fmt"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/spin"
)

func Example() {
	mr, _ := miniredis.Run()
	locks := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()}))
	defer func() { locks.Close(); locks.Redis().Close(); mr.Close() }()
	ctx := context.Background()

	m := spin.New(locks, "orders:42")
	if err := m.Lock(ctx); err != nil {
		fmt.Println("lock:", err)
		return
	}
	fmt.Println("locked with a fencing token:", m.Token() > 0)
	first := m.Token()

	other := spin.New(locks, "orders:42")
	ok, err := other.TryLock(ctx)
	fmt.Println("another owner got it:", ok, err)

	if err := m.Unlock(ctx); err != nil {
		fmt.Println("unlock:", err)
	}
	ok, err = other.TryLock(ctx)
	fmt.Println("after Unlock, another owner got it:", ok, err, "with a larger token:", other.Token() > first)
	_ = other.Unlock(ctx)
	// Output:
	// locked with a fencing token: true
	// another owner got it: false <nil>
	// after Unlock, another owner got it: true <nil> with a larger token: true
}

func ExampleMutex_Lost() {
	locks, closeRedis := embeddedClient()
	defer closeRedis()
	ctx := context.Background()

	// A fixed lease: the lock frees itself after 50 ms.
	m := spin.New(locks, "batch", lockkit.WithLease(50*time.Millisecond))
	if err := m.Lock(ctx); err != nil {
		fmt.Println("lock:", err)
		return
	}
	select {
	case <-m.Lost():
		fmt.Println("lease ended; stop working")
	case <-time.After(5 * time.Second):
		fmt.Println("work done")
	}
	fmt.Println(m.Unlock(ctx))
	// Output:
	// lease ended; stop working
	// lockkit: lock lost: "batch": watchdog: fixed lease ended
}

func ExampleWithBackoff() {
	locks, closeRedis := embeddedClient()
	defer closeRedis()
	ctx := context.Background()

	// A waiter that, while another owner holds the lock, sleeps up to 5 ms
	// after its first refused attempt, then up to twice as long after each
	// further one, up to 50 ms.
	waiter := spin.New(locks, "report", spin.WithBackoff(5*time.Millisecond, 50*time.Millisecond))
	holder := spin.New(locks, "report")
	_ = holder.Lock(ctx)
	done := make(chan error)
	go func() { done <- waiter.Lock(ctx) }()

	_ = holder.Unlock(ctx)
	fmt.Println("waiter:", <-done)
	_ = waiter.Unlock(ctx)
	// Output:
	// waiter: <nil>
}

// embeddedClient returns a Client on a fresh embedded Redis (miniredis),
// as a real server would serve it, and the function that closes both.
// Example shows the same set-up written out.
func embeddedClient() (*lockkit.Client, func()) {
	mr, _ := miniredis.Run()
	client := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()}))
	return client, func() { client.Close(); client.Redis().Close(); mr.Close() }
}
