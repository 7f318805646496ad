package lockkit_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/reentrant"
)

// One Client per Redis, shared by every lock: it owns the one pub/sub
// connection and the one watchdog goroutine. Closing it stops both.
func ExampleNew() {
	mr, _ := miniredis.Run()
	defer mr.Close()
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()

	locks := lockkit.New(rdb, lockkit.WithPrefix("billing")) // defaults for every lock
	defer locks.Close()

	ctx := context.Background()
	m := reentrant.New(locks, "invoice:7")
	if err := m.Lock(ctx); err != nil {
		panic(err)
	}
	fmt.Println("held with a fencing token:", m.Token() > 0)
	fmt.Println(mr.Exists("billing:{invoice:7}"))
	_ = m.Unlock(ctx)
	// Output:
	// held with a fencing token: true
	// true
}

// Holds still open when the Client is closed are reported lost, and the
// locks of a closed Client refuse every call.
func ExampleClient_Close() {
	mr, _ := miniredis.Run()
	defer mr.Close()
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	locks := lockkit.New(rdb)

	ctx := context.Background()
	m := reentrant.New(locks, "report")
	_ = m.Lock(ctx)
	_ = locks.Close()
	<-m.Lost()
	fmt.Println("lost:", errors.Is(m.Lock(ctx), lockkit.ErrClosed))
	// Output:
	// lost: true
}
