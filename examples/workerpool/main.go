// Command workerpool runs a pool of workers that move money between a few
// shared accounts. Each transfer debits the source account and then credits
// the destination, each under that account's reentrant lock, blocking in
// Lock until it is free, so concurrent transfers never overdraw or lose
// updates. At the end the total is unchanged.
//
//	go run ./examples/workerpool               # embedded Redis
//	go run ./examples/workerpool -redis :6379  # a real server
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/examples/internal/exampleredis"
	"github.com/lockkit/lockkit/reentrant"
)

var (
	workers   = flag.Int("workers", 16, "number of workers")
	transfers = flag.Int("transfers", 25, "transfers per worker")
	accounts  = flag.Int("accounts", 4, "number of accounts")
)

func main() {
	client, locks, closeRedis := exampleredis.Connect()
	defer closeRedis()
	if *accounts < 2 {
		log.Fatal("-accounts must be at least 2: a transfer needs two accounts")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	const start = 1000
	for i := range *accounts {
		client.Set(ctx, account(i), start, 0)
	}
	fmt.Printf("%d accounts with %d each; %d workers make %d transfers each\n",
		*accounts, start, *workers, *transfers)

	var wg sync.WaitGroup
	began := time.Now()
	for w := range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range *transfers {
				from := rand.IntN(*accounts)
				to := (from + 1 + rand.IntN(*accounts-1)) % *accounts
				if err := transfer(ctx, client, locks, from, to, 1+rand.IntN(50)); err != nil {
					log.Fatalf("worker %d: %v", w, err)
				}
			}
		}()
	}
	wg.Wait()

	total := 0
	for i := range *accounts {
		n, _ := client.Get(ctx, account(i)).Int()
		fmt.Printf("%s = %d\n", account(i), n)
		total += n
	}
	fmt.Printf("%d transfers in %v; total %d (want %d)\n",
		*workers**transfers, time.Since(began).Round(time.Millisecond), total, start**accounts)
	if total != start**accounts {
		log.Fatal("money was created or destroyed")
	}
}

// transfer moves up to amount from one account to another. The debit and
// the credit each happen under the lock of the account they change.
func transfer(ctx context.Context, c *redis.Client, locks *lockkit.Client, from, to, amount int) error {
	moved := 0
	err := withLock(ctx, locks, account(from), func(ctx context.Context) error {
		balance, err := c.Get(ctx, account(from)).Int()
		if err != nil {
			return err
		}
		moved = min(amount, balance)
		return c.Set(ctx, account(from), balance-moved, 0).Err()
	})
	if err != nil {
		return err
	}
	return withLock(ctx, locks, account(to), func(ctx context.Context) error {
		balance, err := c.Get(ctx, account(to)).Int()
		if err != nil {
			return err
		}
		return c.Set(ctx, account(to), balance+moved, 0).Err()
	})
}

// withLock runs f while holding the lock on key. f's context is cancelled
// if the hold is lost while f runs (the watchdog could not keep it).
func withLock(ctx context.Context, locks *lockkit.Client, key string, f func(context.Context) error) error {
	m := reentrant.New(locks, key)
	if err := m.Lock(ctx); err != nil {
		return err
	}
	ferr := f(m.Context(ctx))
	if err := m.Unlock(ctx); err != nil && ferr == nil {
		ferr = err
	}
	return ferr
}

func account(i int) string { return fmt.Sprintf("account:%d", i) }
