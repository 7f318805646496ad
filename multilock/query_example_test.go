package multilock_test

import (
	"context"
	"fmt"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// A Mutex answers the queries of a single lock for the whole: it is locked
// when any member is held (by anyone), and its owner's hold count is that
// of the whole.
func ExampleMutex_IsLocked() {
	ctx := context.Background()
	client, closeRedis := embeddedClient()
	defer closeRedis()

	both := multilock.New([]lockkit.Locker{reentrant.New(client, "account:7"), reentrant.New(client, "account:3")})
	other := reentrant.New(client, "account:3") // another transfer holds account 3
	_ = other.Lock(ctx)

	locked, _ := both.IsLocked(ctx)
	count, _ := both.HoldCount(ctx)
	fmt.Println("locked:", locked, "held by us:", count)

	// An operator frees every account of the transfer, whoever holds it.
	freed, _ := both.ForceUnlock(ctx)
	fmt.Println("freed:", freed)

	_ = both.Lock(ctx)
	count, _ = both.HoldCount(ctx)
	ttl, _ := both.TTL(ctx)
	fmt.Println("held by us:", count, "lease left:", ttl > 0)
	_ = both.Unlock(ctx)
	// Output:
	// locked: true held by us: 0
	// freed: true
	// held by us: 1 lease left: true
}
