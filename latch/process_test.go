package latch_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// latchChild is a child process holding one value of a latch. Its
// arguments: the Redis (redistest.ClientSpec), the latch's name and count.
// It prints "ready", then for each line it reads: "await" starts Await in
// the background, printing "sleeping" once it sleeps and "open" when it
// returns; "down" counts down and prints "left N". It exits at the end of
// its input.
func latchChild(args []string) {
	c, _, done := redistest.ChildLockkit(args[0])
	defer done()
	name := args[1]
	count := redistest.ChildAtoi(args[2], "count")
	l := latch.New(c, name, count)
	ctx := context.Background()
	redistest.ChildPrintf("ready")
	for line := range redistest.ChildLines() {
		switch line {
		case "await":
			go func() {
				if err := l.Await(ctx); err != nil {
					redistest.ChildFatalf("Await: %v", err)
				}
				redistest.ChildPrintf("open")
			}()
			for c.Notifier().Sleeping(channel(c, name)) == 0 {
				time.Sleep(time.Millisecond)
			}
			redistest.ChildPrintf("sleeping")
		case "down":
			n, err := l.CountDown(ctx)
			if err != nil {
				redistest.ChildFatalf("CountDown: %v", err)
			}
			redistest.ChildPrintf("left %d", n)
		}
	}
}

// TestLatch_across_processes has two processes await a latch of 3 that
// three others count down (one is the test), one waiter being killed with
// SIGKILL while it waits: the count-downs of every process count once and
// the surviving waiter is woken by the last.
func TestLatch_across_processes(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		name := redistest.Unique(t)
		spec := redistest.ClientSpec(rc)
		var kids []*redistest.Child
		for range 3 {
			k := redistest.StartChild(t, "latch", spec, name, "3")
			k.WaitLine(t, "ready", redistest.Hang)
			kids = append(kids, k)
		}
		waiter, killed, counter := kids[0], kids[1], kids[2]
		for _, k := range []*redistest.Child{waiter, killed} {
			k.Send(t, "await")
			k.WaitLine(t, "sleeping", redistest.Hang)
		}
		killed.Kill(t)

		mustCountDown(t, latch.New(redistest.Lockkit(t, rc), name, 3), 2)
		counter.Send(t, "down")
		counter.WaitLine(t, "left 1", redistest.Hang)
		waiter.Send(t, "down")
		waiter.WaitLine(t, "left 0", redistest.Hang)
		waiter.WaitLine(t, "open", redistest.Hang)
		for _, k := range []*redistest.Child{waiter, counter} {
			k.CloseStdin(t)
			k.Wait(t, redistest.Hang)
		}
	})
}
