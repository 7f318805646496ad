package multilock_test

import (
	"context"
	"fmt"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

func ExampleNewRedLock() {
	// Three independent masters (here embedded ones), a Client each.
	var clients []*lockkit.Client
	for range 3 {
		c, closeRedis := embeddedClient()
		defer closeRedis()
		clients = append(clients, c)
	}
	ctx := context.Background()

	lock := multilock.NewRedLock(clients, "ledger")
	if err := lock.Lock(ctx); err != nil {
		fmt.Println("lock:", err)
		return
	}
	fmt.Println("held on a quorum of", lock.Quorum(), "with a fencing token:", lock.Token() > 0)

	other := multilock.NewRedLock(clients, "ledger")
	ok, err := other.TryLock(ctx)
	fmt.Println("another owner got it:", ok, err)

	if err := lock.Unlock(ctx); err != nil {
		fmt.Println("unlock:", err)
	}
	// Output:
	// held on a quorum of 2 with a fencing token: true
	// another owner got it: false <nil>
}

func Example() {
	ctx := context.Background()
	client, closeRedis := embeddedClient()
	defer closeRedis()

	// Move money from account 7 to account 3: hold both accounts. Any
	// caller locking {3, 7} in any order takes account:3 first.
	both := multilock.New([]lockkit.Locker{
		reentrant.New(client, "account:7"), // from
		reentrant.New(client, "account:3"), // to
	})
	if err := both.Lock(ctx); err != nil {
		fmt.Println("lock:", err)
		return
	}
	fmt.Println("holding", both.Name())
	fmt.Println("unlock:", both.Unlock(ctx))
	// Output:
	// holding account:3+account:7
	// unlock: <nil>
}

func ExampleMutex_TryLock() {
	ctx := context.Background()
	client, closeRedis := embeddedClient()
	defer closeRedis()

	a, b := reentrant.New(client, "a"), spin.New(client, "b")
	m := multilock.New([]lockkit.Locker{a, b})
	other := spin.New(client, "b") // another owner, holding b
	_ = other.Lock(ctx)

	ok, err := m.TryLock(ctx)
	fmt.Println("got both:", ok, err)
	locked, _ := a.IsLocked(ctx)
	fmt.Println("a left locked:", locked)

	_ = other.Unlock(ctx)
	ok, err = m.TryLock(ctx)
	fmt.Println("got both:", ok, err)
	_ = m.Unlock(ctx)
	// Output:
	// got both: false <nil>
	// a left locked: false
	// got both: true <nil>
}

// embeddedClient returns a Client on a fresh embedded Redis (miniredis),
// as a real server would serve it, and the function that closes both.
func embeddedClient() (*lockkit.Client, func()) {
	mr, _ := miniredis.Run()
	client := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()}))
	return client, func() { client.Close(); client.Redis().Close(); mr.Close() }
}
