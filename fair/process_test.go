package fair_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// children are the entry points of this package's child processes.
var children = redistest.Children{
	"waiters": childWaiters,
	"counter": redistest.CountingChild(childCounterLock),
}

// childKit is the one lockkit Client of a counting child process, shared
// by its locks as a process shares one; the process exit ends it.
var childKit struct {
	once sync.Once
	lc   *lockkit.Client
}

// childCounterLock returns a fair lock of the counting child's Client.
func childCounterLock(clients []redis.UniversalClient, name string) redistest.TokenLocker {
	childKit.once.Do(func() { childKit.lc = lockkit.New(clients[0]) })
	return fair.New(childKit.lc, name)
}

// childWaiters starts a waiter for each line "join ID" it receives: a
// goroutine that locks as owner ID, appends ID to the list ORDERKEY while it
// holds the lock, unlocks and prints "done ID". It exits once its input
// ends and every waiter is done.
// Args: client spec (see redistest.ClientSpec), lock name, order key,
// waiter timeout.
func childWaiters(args []string) {
	c := redistest.SpecClient(args[0])
	defer c.Close()
	lc := lockkit.New(c)
	defer lc.Close()
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
		m := fair.New(lc, name, lockkit.WithOwner(id), fair.WithWaiterTimeout(wt))
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

// testOrderAcrossProcesses has 4 processes × 8 goroutines join the queue
// of a held lock one after another, and checks that they acquire in join
// order once it is released.
func testOrderAcrossProcesses(t *testing.T, c redis.UniversalClient) {
	name := lockName(t, c)
	orderKey := "order:{" + name + "}"
	t.Cleanup(func() { c.Del(context.Background(), orderKey) })
	const P, G = 4, 8
	holder := fair.New(redistest.Lockkit(t, c), name)
	redistest.MustLock(t, holder)

	procs := make([]*redistest.Child, P)
	for i := range procs {
		procs[i] = redistest.StartChild(t, "waiters", redistest.ClientSpec(c), name, orderKey, fair.DefaultWaiterTimeout.String())
	}
	for _, ch := range procs {
		ch.WaitLine(t, "ready", 30*time.Second)
	}
	var joined []string
	for i := range P * G {
		id := fmt.Sprintf("p%d-g%02d", i%P, i/P)
		procs[i%P].Send(t, "join "+id)
		joined = append(joined, id)
		waitQueue(t, c, name, joined...)
	}
	redistest.MustUnlock(t, holder)
	for _, ch := range procs {
		for range G {
			ch.WaitLine(t, "done", time.Minute)
		}
		ch.CloseStdin(t)
		ch.Wait(t, 30*time.Second)
	}
	order, err := c.LRange(redistest.Ctx(t, 5*time.Second), orderKey, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, joined) {
		t.Fatalf("acquisition order\n%q\nwant join order\n%q", order, joined)
	}
}

func TestLock_order_across_processes(t *testing.T) {
	testOrderAcrossProcesses(t, redistest.StartServer(t).Client(t))
}

func TestLock_order_across_processes_on_cluster(t *testing.T) {
	testOrderAcrossProcesses(t, redistest.StartCluster(t).Client(t))
}

// TestLock_excludes_across_processes has 4 processes × 16 goroutines, each
// its own owner, increment one counter 10 times each under the lock with a
// separate read and write.
func TestLock_excludes_across_processes(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	name := lockName(t, c)
	redistest.CountRun{
		Child: "counter", Addrs: []string{srv.Addr()}, Name: name,
		Procs: 4, Goroutines: 16, Rounds: 10, Timeout: 2 * time.Minute,
	}.Run(t)
	redistest.AssertClean(t, c, name)
}

// TestLock_after_head_waiter_process_killed: the process of the first
// waiter dies; the next waiter gets the lock within the waiter timeout
// (plus a second) of its death, although the release went to the dead one.
func TestLock_after_head_waiter_process_killed(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	name := lockName(t, c)
	const waiterTimeout = 2 * time.Second
	lc := redistest.Lockkit(t, c)
	holder := fair.New(lc, name)
	redistest.MustLock(t, holder)

	child := redistest.StartChild(t, "waiters", redistest.ClientSpec(c), name, name+":order", waiterTimeout.String())
	child.WaitLine(t, "ready", 30*time.Second)
	child.Send(t, "join dead")
	waitQueue(t, c, name, "dead")
	next := fair.New(lc, name, lockkit.WithOwner("next"), fair.WithWaiterTimeout(waiterTimeout))
	got := lockAsync(redistest.Ctx(t, 30*time.Second), next)
	waitQueue(t, c, name, "dead", "next")

	child.Kill(t)
	killed := time.Now()
	redistest.MustUnlock(t, holder) // wakes the dead waiter, which cannot take it
	if err := redistest.Receive(t, got, 10*waiterTimeout, "the next waiter"); err != nil {
		t.Fatalf("Lock after the head waiter died: %v", err)
	}
	if waited := time.Since(killed); waited > waiterTimeout+time.Second {
		t.Fatalf("acquired %v after the head waiter died; want within the waiter timeout (%v) + 1s", waited, waiterTimeout)
	}
	wantQueue(t, c, name)
	redistest.MustUnlock(t, next)
	if n, _ := c.Exists(redistest.Ctx(t, time.Second), name+":order").Result(); n != 0 {
		t.Fatal("the killed waiter got the lock")
	}
}
