package fair_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

func init() {
	redistest.RegisterChild("waiters", childWaiters)
	redistest.RegisterChild("counter", childCounter)
}

// childClient connects to addrs: a cluster when there are several.
func childClient(addrs string) redis.UniversalClient {
	if list := strings.Split(addrs, ","); len(list) > 1 {
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: list})
	}
	return redis.NewClient(&redis.Options{Addr: addrs})
}

// childWaiters starts a waiter for each line "join ID" it receives: a
// goroutine that locks as owner ID, appends ID to the list ORDERKEY while it
// holds the lock, unlocks and prints "done ID". It exits once its input
// ends and every waiter is done.
// Args: addrs (comma-separated), lock name, order key, waiter timeout.
func childWaiters(args []string) {
	c := childClient(args[0])
	defer c.Close()
	name, orderKey := args[1], args[2]
	wt, err := time.ParseDuration(args[3])
	if err != nil {
		redistest.ChildFatalf("waiter timeout: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	redistest.ChildPrintf("ready")
	var wg sync.WaitGroup
	for line := range redistest.ChildLines() {
		id, ok := strings.CutPrefix(line, "join ")
		if !ok {
			redistest.ChildFatalf("unexpected input %q", line)
		}
		m := fair.New(c, name, fair.WithOwner(id), fair.WithWaiterTimeout(wt))
		wg.Go(func() {
			if err := m.Lock(ctx); err != nil {
				redistest.ChildFatalf("lock %s: %v", id, err)
			}
			if err := c.RPush(ctx, orderKey, id).Err(); err != nil {
				redistest.ChildFatalf("rpush: %v", err)
			}
			if err := m.Unlock(ctx); err != nil {
				redistest.ChildFatalf("unlock %s: %v", id, err)
			}
			redistest.ChildPrintf("done %s", id)
		})
	}
	wg.Wait()
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
		wg.Go(func() {
			m := fair.New(c, name)
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
		})
	}
	wg.Wait()
	redistest.ChildPrintf("done")
}

// testOrderAcrossProcesses has 4 processes × 8 goroutines join the queue
// of a held lock one after another, and checks that they acquire in join
// order once it is released.
func testOrderAcrossProcesses(t *testing.T, c redis.UniversalClient, addrs string) {
	name := lockName(t, c)
	orderKey := "order:{" + name + "}"
	t.Cleanup(func() { c.Del(context.Background(), orderKey) })
	const P, G = 4, 8
	holder := fair.New(c, name)
	mustLock(t, holder)

	children := make([]*redistest.Child, P)
	for i := range children {
		children[i] = redistest.StartChild(t, "waiters", addrs, name, orderKey, fair.DefaultWaiterTimeout.String())
	}
	for _, ch := range children {
		ch.WaitLine(t, "ready", 30*time.Second)
	}
	var joined []string
	for i := range P * G {
		id := fmt.Sprintf("p%d-g%02d", i%P, i/P)
		children[i%P].Send(t, "join "+id)
		joined = append(joined, id)
		waitQueue(t, c, name, joined...)
	}
	mustUnlock(t, holder)
	for _, ch := range children {
		for range G {
			ch.WaitLine(t, "done", time.Minute)
		}
		ch.CloseStdin(t)
		ch.Wait(t, 30*time.Second)
	}
	order, err := c.LRange(ctxT(t, 5*time.Second), orderKey, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, joined) {
		t.Fatalf("acquisition order\n%q\nwant join order\n%q", order, joined)
	}
}

func TestLock_order_across_processes(t *testing.T) {
	srv := redistest.StartServer(t)
	testOrderAcrossProcesses(t, srv.Client(t), srv.Addr())
}

func TestLock_order_across_processes_on_cluster(t *testing.T) {
	cl := redistest.StartCluster(t)
	testOrderAcrossProcesses(t, cl.Client(t), strings.Join(cl.Addrs(), ","))
}

func TestLock_excludes_across_processes(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	name, key := lockName(t, c), redistest.Unique(t)+":counter"
	const P, G, N = 4, 16, 10
	children := make([]*redistest.Child, P)
	for i := range children {
		children[i] = redistest.StartChild(t, "counter", srv.Addr(), name, key, strconv.Itoa(G), strconv.Itoa(N))
	}
	for _, ch := range children {
		ch.WaitLine(t, "ready", 30*time.Second)
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
	if n, _ := c.Exists(ctxT(t, time.Second), lockKey(name)).Result(); n != 0 {
		t.Fatal("lock key left behind")
	}
}

// TestLock_after_head_waiter_process_killed: the process of the first
// waiter dies; the next waiter gets the lock within the waiter timeout
// (plus a second) of its death, although the release went to the dead one.
func TestLock_after_head_waiter_process_killed(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	name := lockName(t, c)
	const waiterTimeout = 2 * time.Second
	holder := fair.New(c, name)
	mustLock(t, holder)

	child := redistest.StartChild(t, "waiters", srv.Addr(), name, name+":order", waiterTimeout.String())
	child.WaitLine(t, "ready", 30*time.Second)
	child.Send(t, "join dead")
	waitQueue(t, c, name, "dead")
	next := fair.New(c, name, fair.WithOwner("next"), fair.WithWaiterTimeout(waiterTimeout))
	got := lockAsync(ctxT(t, 30*time.Second), next)
	waitQueue(t, c, name, "dead", "next")

	child.Kill(t)
	killed := time.Now()
	mustUnlock(t, holder) // wakes the dead waiter, which cannot take it
	if err := receive(t, got, 10*waiterTimeout, "the next waiter"); err != nil {
		t.Fatalf("Lock after the head waiter died: %v", err)
	}
	if waited := time.Since(killed); waited > waiterTimeout+time.Second {
		t.Fatalf("acquired %v after the head waiter died; want within the waiter timeout (%v) + 1s", waited, waiterTimeout)
	}
	wantQueue(t, c, name)
	mustUnlock(t, next)
	if n, _ := c.Exists(ctxT(t, time.Second), name+":order").Result(); n != 0 {
		t.Fatal("the killed waiter got the lock")
	}
}
