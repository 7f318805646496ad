package multilock_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

func init() {
	// redlock-hammer NAME ROUNDS ADDR... waits for "go" on stdin, then takes
	// a RedLock over the servers at ADDR... ROUNDS times. Inside the lock
	// it increments count:NAME on the first server with a read and a
	// separate write (so overlapping holders lose updates) and swaps its
	// fencing token into token:NAME there, failing if the token it replaces
	// is not smaller. It prints "done ROUNDS".
	redistest.RegisterChild("redlock-hammer", func(args []string) {
		name := args[0]
		rounds, _ := strconv.Atoi(args[1])
		var clients []redis.UniversalClient
		for _, addr := range args[2:] {
			c := redis.NewClient(&redis.Options{Addr: addr})
			defer c.Close()
			clients = append(clients, c)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		r := multilock.NewRedLock(clients, name)
		c := clients[0]
		redistest.ChildPrintf("ready")
		if line := <-redistest.ChildLines(); line != "go" {
			redistest.ChildFatalf("got %q, want go", line)
		}
		for i := range rounds {
			if err := r.Lock(ctx); err != nil {
				redistest.ChildFatalf("round %d: Lock: %v", i, err)
			}
			n, err := c.Get(ctx, "count:"+name).Int()
			if err != nil && !errors.Is(err, redis.Nil) {
				redistest.ChildFatalf("GET: %v", err)
			}
			old, err := c.SetArgs(ctx, "token:"+name, r.Token(), redis.SetArgs{Get: true}).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				redistest.ChildFatalf("SET GET: %v", err)
			}
			if prev, _ := strconv.ParseInt(old, 10, 64); prev >= r.Token() {
				redistest.ChildFatalf("round %d: token %d after token %d", i, r.Token(), prev)
			}
			if err := c.Set(ctx, "count:"+name, n+1, 0).Err(); err != nil {
				redistest.ChildFatalf("SET: %v", err)
			}
			if err := r.Unlock(ctx); err != nil {
				redistest.ChildFatalf("round %d: Unlock: %v", i, err)
			}
		}
		redistest.ChildPrintf("done %d", rounds)
	})
}

// TestRedLock_excludes_across_processes runs three processes that each take
// a RedLock over five masters 20 times to increment a counter with a
// non-atomic read and write; any overlap would lose an increment or reorder
// the fencing tokens.
func TestRedLock_excludes_across_processes(t *testing.T) {
	ctx := testCtx(t)
	servers, clients := masters(t, 5)
	addrs := make([]string, len(servers))
	for i, s := range servers {
		addrs[i] = s.Addr()
	}
	name := redistest.Unique(t)
	const procs, rounds = 3, 20
	children := make([]*redistest.Child, procs)
	for i := range children {
		args := append([]string{name, strconv.Itoa(rounds)}, addrs...)
		children[i] = redistest.StartChild(t, "redlock-hammer", args...)
	}
	for _, ch := range children {
		ch.WaitLine(t, "ready", hang)
	}
	for _, ch := range children {
		ch.Send(t, "go")
	}
	for _, ch := range children {
		ch.WaitLine(t, "done", time.Minute)
		ch.Wait(t, hang)
	}
	if n, err := clients[0].Get(ctx, "count:"+name).Int(); n != procs*rounds || err != nil {
		t.Fatalf("count = %d, %v; want %d", n, err, procs*rounds)
	}
	assertCleanAll(t, clients, name)
}
