package spin_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/spin"
)

func init() {
	// spin-hammer ADDR NAME ROUNDS waits for "go" on stdin, then takes the
	// lock ROUNDS times. Inside the lock it increments count:NAME with a
	// read and a separate write (so overlapping holders lose updates) and
	// swaps its fencing token into token:NAME, failing if the token there
	// is not smaller. It prints "done ROUNDS".
	redistest.RegisterChild("spin-hammer", func(args []string) {
		addr, name := args[0], args[1]
		rounds, _ := strconv.Atoi(args[2])
		c := redis.NewClient(&redis.Options{Addr: addr})
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		m := spin.New(c, name)
		redistest.ChildPrintf("ready")
		if line := <-redistest.ChildLines(); line != "go" {
			redistest.ChildFatalf("got %q, want go", line)
		}
		for i := range rounds {
			if err := m.Lock(ctx); err != nil {
				redistest.ChildFatalf("round %d: Lock: %v", i, err)
			}
			n, err := c.Get(ctx, "count:"+name).Int()
			if err != nil && !errors.Is(err, redis.Nil) {
				redistest.ChildFatalf("GET: %v", err)
			}
			old, err := c.SetArgs(ctx, "token:"+name, m.Token(), redis.SetArgs{Get: true}).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				redistest.ChildFatalf("SET GET: %v", err)
			}
			prev, _ := strconv.ParseInt(old, 10, 64) // 0 for the first holder
			if prev >= m.Token() {
				redistest.ChildFatalf("round %d: token %d after token %d", i, m.Token(), prev)
			}
			if err := c.Set(ctx, "count:"+name, n+1, 0).Err(); err != nil {
				redistest.ChildFatalf("SET: %v", err)
			}
			if err := m.Unlock(ctx); err != nil {
				redistest.ChildFatalf("round %d: Unlock: %v", i, err)
			}
		}
		redistest.ChildPrintf("done %d", rounds)
	})
}

// TestLock_excludes_across_processes runs three processes that each take
// the lock 30 times to increment a counter with a non-atomic read and
// write; any overlap would lose an increment or reorder fencing tokens.
func TestLock_excludes_across_processes(t *testing.T) {
	ctx := testCtx(t)
	s := redistest.StartServer(t)
	c := s.Client(t)
	name := redistest.Unique(t)
	const procs, rounds = 3, 30
	children := make([]*redistest.Child, procs)
	for i := range children {
		children[i] = redistest.StartChild(t, "spin-hammer", s.Addr(), name, strconv.Itoa(rounds))
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
	if n, err := c.Get(ctx, "count:"+name).Int(); n != procs*rounds || err != nil {
		t.Fatalf("count = %d, %v; want %d", n, err, procs*rounds)
	}
	assertClean(t, c, name)
}
