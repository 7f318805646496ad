// Command transfer moves money between bank accounts kept in Redis, with
// several workers at once. Each transfer holds the locks of both accounts
// through a multilock.Mutex, so balances are read and written without
// races, and two transfers in opposite directions (alice→bob and bob→alice)
// never deadlock: both take the accounts' locks in the same order.
//
// It runs on an embedded Redis (miniredis) by default, so nothing needs to
// be installed but Go:
//
//	go run ./examples/transfer
//	go run ./examples/transfer -redis 127.0.0.1:6379 -transfers 200 -workers 8
//
// With -redis it uses that server and removes the keys it created when it
// is done (those that remember released tokens expire by themselves
// within 10 s). With -unsafe it skips the locks, to show what they prevent:
// concurrent transfers then overwrite each other's balances and the total
// changes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/examples/internal/exampleredis"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// keyPrefix starts every key this program writes, so that it can clean up.
const keyPrefix = "lockkit-example"

var accounts = []string{"alice", "bob", "carol", "dave"}

const opening = 100 // each account's opening balance

func main() {
	transfers := flag.Int("transfers", 40, "number of transfers")
	workers := flag.Int("workers", 4, "number of concurrent workers")
	verbose := flag.Bool("v", false, "print every transfer")
	unsafe := flag.Bool("unsafe", false, "transfer without taking the locks")
	client, locks, closeRedis := exampleredis.Connect() // parses the flags
	if *transfers < 1 || *workers < 1 {
		log.Fatal("-transfers and -workers must be at least 1")
	}
	err := run(client, locks, *transfers, *workers, *verbose, *unsafe)
	closeRedis()
	if err != nil {
		fmt.Fprintln(os.Stderr, "transfer:", err)
		os.Exit(1)
	}
}

func run(client *redis.Client, locks *lockkit.Client, transfers, workers int, verbose, unsafe bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		return err
	}

	b := bank{client: client, locks: locks, prefix: fmt.Sprintf("%s:%d", keyPrefix, time.Now().UnixNano()), unsafe: unsafe}
	if unsafe {
		fmt.Println("-unsafe: transfers take no locks")
	}
	defer b.cleanUp()
	if err := b.open(ctx); err != nil {
		return err
	}
	before, err := b.report(ctx, "opening balances")
	if err != nil {
		return err
	}

	var done, skipped atomic.Int64
	var next atomic.Int64
	errs := make([]error, workers) // each worker's error, if it stopped on one
	var wg sync.WaitGroup
	for w := 1; w <= workers; w++ {
		wg.Go(func() {
			for next.Add(1) <= int64(transfers) {
				from, to := pick()
				amount := 1 + rand.IntN(40)
				moved, err := b.transfer(ctx, from, to, amount)
				if err != nil {
					errs[w-1] = fmt.Errorf("worker %d: %w", w, err)
					return
				}
				if !moved {
					skipped.Add(1)
				}
				if n := done.Add(1); verbose || n <= 5 {
					verb := "moved"
					if !moved {
						verb = "could not move (not enough money)"
					}
					fmt.Printf("worker %d: %s %d from %s to %s\n", w, verb, amount, from, to)
				} else if n == 6 {
					fmt.Println("... (-v prints every transfer)")
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Printf("%d transfers by %d workers, %d refused for lack of funds\n", done.Load(), workers, skipped.Load())
	after, err := b.report(ctx, "closing balances")
	if err != nil {
		return err
	}
	if after != before {
		return fmt.Errorf("money was created or destroyed: %d before, %d after", before, after)
	}
	fmt.Printf("total unchanged: %d\n", after)
	return nil
}

// pick returns two different accounts at random.
func pick() (from, to string) {
	i := rand.IntN(len(accounts))
	j := (i + 1 + rand.IntN(len(accounts)-1)) % len(accounts)
	return accounts[i], accounts[j]
}

// bank keeps one balance per account in Redis, as a plain string key.
type bank struct {
	client *redis.Client
	locks  *lockkit.Client
	prefix string
	unsafe bool // skip the locks
}

func (b bank) balanceKey(account string) string { return b.prefix + ":balance:" + account }

// lock returns a lock for account. Each transfer builds new ones: each
// value is one owner.
func (b bank) lock(account string) *reentrant.Mutex {
	return reentrant.New(b.locks, "account:"+account, lockkit.WithPrefix(b.prefix))
}

func (b bank) open(ctx context.Context) error {
	for _, a := range accounts {
		if err := b.client.Set(ctx, b.balanceKey(a), opening, 0).Err(); err != nil {
			return err
		}
	}
	return nil
}

// transfer moves amount from one account to another unless from has less.
// The balances are read and written with separate commands: only the locks
// keep two transfers from interleaving.
func (b bank) transfer(ctx context.Context, from, to string, amount int) (bool, error) {
	if b.unsafe {
		return b.move(ctx, from, to, amount)
	}
	both := multilock.New([]lockkit.Locker{b.lock(from), b.lock(to)})
	if err := both.Lock(ctx); err != nil {
		return false, err
	}
	moved, err := b.move(ctx, from, to, amount)
	return moved, errors.Join(err, both.Unlock(ctx))
}

func (b bank) move(ctx context.Context, from, to string, amount int) (bool, error) {
	have, err := b.client.Get(ctx, b.balanceKey(from)).Int()
	if err != nil {
		return false, err
	}
	if have < amount {
		return false, nil
	}
	dest, err := b.client.Get(ctx, b.balanceKey(to)).Int()
	if err != nil {
		return false, err
	}
	if err := b.client.Set(ctx, b.balanceKey(from), have-amount, 0).Err(); err != nil {
		return false, err
	}
	return true, b.client.Set(ctx, b.balanceKey(to), dest+amount, 0).Err()
}

// report prints every balance and returns their sum.
func (b bank) report(ctx context.Context, title string) (int, error) {
	var parts []string
	total := 0
	for _, a := range accounts {
		n, err := b.client.Get(ctx, b.balanceKey(a)).Int()
		if err != nil {
			return 0, err
		}
		total += n
		parts = append(parts, fmt.Sprintf("%s=%d", a, n))
	}
	fmt.Printf("%s: %s (total %d)\n", title, strings.Join(parts, " "), total)
	return total, nil
}

// cleanUp deletes the balances; the locks are already gone, and only their
// fencing counters are left, which it deletes too (the keys that remember
// released tokens expire by themselves within 10 s).
func (b bank) cleanUp() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, a := range accounts {
		lock := b.prefix + ":{account:" + a + "}"
		b.client.Del(ctx, b.balanceKey(a), lock+":fence")
	}
}
