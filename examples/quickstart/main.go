// Command quickstart shows the reentrant lock at work: two owners of one
// lock, re-entry, a waiter woken by the release, and fencing tokens.
//
//	go run ./examples/quickstart               # embedded Redis
//	go run ./examples/quickstart -redis :6379  # a real server
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/examples/internal/exampleredis"
	"github.com/lockkit/lockkit/reentrant"
)

func main() {
	_, locks, closeRedis := exampleredis.Connect()
	defer closeRedis()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	alice := reentrant.New(locks, "orders:42")
	bob := reentrant.New(locks, "orders:42")

	must(alice.Lock(ctx))
	fmt.Printf("alice holds orders:42 with fencing token %d\n", alice.Token())

	must(alice.Lock(ctx))
	n, _ := alice.HoldCount(ctx)
	fmt.Printf("alice locks again (re-entry): hold count %d\n", n)

	ok, err := bob.TryLock(ctx)
	must(err)
	fmt.Printf("bob tries the lock: %v\n", ok)

	err = bob.Unlock(ctx)
	fmt.Printf("bob unlocks what he does not hold: %v (ErrNotHeld: %v)\n", err, errors.Is(err, lockkit.ErrNotHeld))

	got := make(chan error)
	go func() { got <- bob.Lock(ctx) }()
	fmt.Println("bob waits in Lock; alice unlocks twice")
	must(alice.Unlock(ctx))
	must(alice.Unlock(ctx))
	must(<-got)
	fmt.Printf("bob was woken and holds orders:42 with fencing token %d\n", bob.Token())

	short, stop := context.WithTimeout(ctx, 100*time.Millisecond)
	err = alice.Lock(short)
	stop()
	fmt.Printf("alice waits 100ms and gives up: %v\n", err)

	must(bob.Unlock(ctx))
	locked, _ := bob.IsLocked(ctx)
	fmt.Printf("bob unlocks; still locked: %v\n", locked)
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
