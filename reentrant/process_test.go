package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// children are the entry points of this package's child processes.
func children() redistest.Children {
	return redistest.Children{
		"counter": redistest.CountingChild(
			func(clients []redis.UniversalClient, name string) redistest.TokenLocker {
				return reentrant.New(lockkit.New(clients[0]), name)
			}),
		"holder": childHolder,
	}
}

// childHolder takes the lock and holds it until killed.
// Args: addr, lock name, watchdog timeout.
func childHolder(args []string) {
	c := redis.NewClient(&redis.Options{Addr: args[0]})
	defer c.Close()
	d, _ := time.ParseDuration(args[2])
	lc := lockkit.New(c)
	defer lc.Close()
	m := reentrant.New(lc, args[1], lockkit.WithWatchdogTimeout(d))
	if err := m.Lock(context.Background()); err != nil {
		redistest.ChildFatalf("lock: %v", err)
	}
	redistest.ChildPrintf("acquired %d", m.Token())
	for range redistest.ChildLines() {
	}
	select {} // hold until killed
}

// TestLock_excludes_across_processes has 4 processes × 16 goroutines, each
// its own owner, increment one counter 10 times each under the lock with a
// separate read and write.
func TestLock_excludes_across_processes(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	name := redistest.Unique(t)
	redistest.CountRun{
		Child: "counter", Addrs: []string{srv.Addr()}, Name: name,
		Procs: 4, Goroutines: 16, Rounds: 10, Timeout: 2 * time.Minute,
	}.Run(t)
	redistest.AssertClean(t, c, name)
}

func TestLock_after_holder_process_killed(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	name := redistest.Unique(t)
	const lease = time.Second
	holder := redistest.StartChild(t, "holder", srv.Addr(), name, lease.String())
	holder.WaitLine(t, "acquired", 30*time.Second)

	lc := redistest.Lockkit(t, c)
	m := reentrant.New(lc, name)
	if ok, _ := m.TryLock(redistest.Ctx(t, time.Second)); ok {
		t.Fatal("acquired while the holder process lives")
	}
	got := make(chan error, 1)
	go func() { got <- m.Lock(redistest.Ctx(t, 30*time.Second)) }()
	redistest.Eventually(t, 10*time.Second, "the waiter to subscribe", func() bool {
		return lc.Notifier().Waiters(channelOf(name)) == 1
	})
	holder.Kill(t)
	killed := time.Now()
	if err := <-got; err != nil {
		t.Fatalf("Lock after holder died: %v", err)
	}
	if waited := time.Since(killed); waited > lease+time.Second {
		t.Fatalf("acquired %v after the holder died; want within lease (%v) + 1s", waited, lease)
	}
	redistest.MustUnlock(t, m)
}
