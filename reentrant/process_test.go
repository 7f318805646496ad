package reentrant_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
	"github.com/lockkit/lockkit/reentrant"
)

func init() {
	redistest.RegisterChild("counter", childCounter)
	redistest.RegisterChild("holder", childHolder)
}

// childCounter runs G goroutines, each its own owner, that N times lock,
// GET the counter, SET it to one more and unlock.
// Args: addr, lock name, counter key, G, N.
func childCounter(args []string) {
	c := redis.NewClient(&redis.Options{Addr: args[0]})
	defer c.Close()
	name, key := args[1], args[2]
	g, _ := strconv.Atoi(args[3])
	n, _ := strconv.Atoi(args[4])
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	redistest.ChildPrintf("ready")
	<-redistest.ChildLines() // wait for "go", so all processes start together
	var wg sync.WaitGroup
	for range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := reentrant.New(c, name)
			for range n {
				if err := m.Lock(ctx); err != nil {
					redistest.ChildFatalf("lock: %v", err)
				}
				v, err := c.Get(ctx, key).Int()
				if err != nil && err != redis.Nil {
					redistest.ChildFatalf("get: %v", err)
				}
				if err := c.Set(ctx, key, v+1, 0).Err(); err != nil {
					redistest.ChildFatalf("set: %v", err)
				}
				if err := m.Unlock(ctx); err != nil {
					redistest.ChildFatalf("unlock: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	redistest.ChildPrintf("done")
}

// childHolder takes the lock and holds it until killed.
// Args: addr, lock name, watchdog timeout.
func childHolder(args []string) {
	c := redis.NewClient(&redis.Options{Addr: args[0]})
	defer c.Close()
	d, _ := time.ParseDuration(args[2])
	m := reentrant.New(c, args[1], reentrant.WithWatchdogTimeout(d))
	if err := m.Lock(context.Background()); err != nil {
		redistest.ChildFatalf("lock: %v", err)
	}
	redistest.ChildPrintf("acquired %d", m.Token())
	for range redistest.ChildLines() {
	}
	select {} // hold until killed
}

func TestLock_excludes_across_processes(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	name, key := redistest.Unique(t), redistest.Unique(t)+":counter"
	const P, G, N = 4, 16, 10
	children := make([]*redistest.Child, P)
	for i := range children {
		children[i] = redistest.StartChild(t, "counter", srv.Addr(), name, key, strconv.Itoa(G), strconv.Itoa(N))
		children[i].WaitLine(t, "ready", 30*time.Second)
	}
	for _, ch := range children {
		ch.Send(t, "go")
	}
	for _, ch := range children {
		ch.WaitLine(t, "done", 2*time.Minute)
		ch.Wait(t, 30*time.Second)
	}
	got, err := c.Get(ctxT(t, time.Second), key).Int()
	if err != nil || got != P*G*N {
		t.Fatalf("counter = %d, %v; want %d (lost updates mean two holders overlapped)", got, err, P*G*N)
	}
	if n, _ := c.Exists(ctxT(t, time.Second), "lockkit:{"+name+"}").Result(); n != 0 {
		t.Fatal("lock key left behind")
	}
}

func TestLock_after_holder_process_killed(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	name := redistest.Unique(t)
	const lease = time.Second
	holder := redistest.StartChild(t, "holder", srv.Addr(), name, lease.String())
	holder.WaitLine(t, "acquired", 30*time.Second)

	m := reentrant.New(c, name)
	if ok, _ := m.TryLock(ctxT(t, time.Second)); ok {
		t.Fatal("acquired while the holder process lives")
	}
	got := make(chan error, 1)
	go func() { got <- m.Lock(ctxT(t, 30*time.Second)) }()
	channel := "lockkit:{" + name + "}:ch"
	eventually(t, 10*time.Second, "the waiter to sleep", func() bool {
		return notify.For(c).Waiters(channel) == 1
	})
	holder.Kill(t)
	killed := time.Now()
	if err := <-got; err != nil {
		t.Fatalf("Lock after holder died: %v", err)
	}
	if waited := time.Since(killed); waited > lease+time.Second {
		t.Fatalf("acquired %v after the holder died; want within lease (%v) + 1s", waited, lease)
	}
	mustUnlock(t, m)
}
