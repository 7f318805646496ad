package adminfault_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, redistest.Children{"waiter": waiterChild}) }

// waiterChild is a process that waits for a lock: it makes a Client of
// each server, takes the lock with the owner 3 of the kind, prints
// "waiting" once its Lock waits, "locked" once it holds the lock, and
// "unlocked" once it gave it back. Its arguments: the kind, the watchdog
// timeout, the lock's name and the servers' addresses, separated by
// commas.
func waiterChild(args []string) {
	if len(args) != 4 {
		redistest.ChildFatalf("waiter: want kind, lease, name and servers; got %q", args)
	}
	k, ok := kindNamed(args[0])
	if !ok {
		redistest.ChildFatalf("waiter: no kind %q", args[0])
	}
	d, err := time.ParseDuration(args[1])
	if err != nil {
		redistest.ChildFatalf("waiter: %v", err)
	}
	tr := &lockkit.Trace{WaitStart: func(lockkit.WaitStartInfo) { redistest.ChildPrintf("waiting") }}
	var s side
	for _, addr := range strings.Split(args[3], ",") {
		rc := redis.NewClient(&redis.Options{Addr: addr})
		c := lockkit.New(rc, lockkit.WithWatchdogTimeout(d), lockkit.WithTrace(tr))
		defer func() {
			_ = c.Close()
			_ = rc.Close()
		}()
		s.nodes = append(s.nodes, c)
	}
	o := k.owner(s, args[2], 3)
	ctx, cancel := context.WithTimeout(context.Background(), redistest.Hang)
	defer cancel()
	if err := o.Lock(ctx); err != nil {
		redistest.ChildFatalf("waiter: Lock: %v", err)
	}
	redistest.ChildPrintf("locked")
	if err := o.Unlock(ctx); err != nil {
		redistest.ChildFatalf("waiter: Unlock: %v", err)
	}
	redistest.ChildPrintf("unlocked")
}

// startWaiterChild starts a waiterChild for e's lock and returns once its
// Lock waits.
func (e *env) startWaiterChild(t *testing.T) *redistest.Child {
	t.Helper()
	addrs := make([]string, len(e.servers))
	for i, s := range e.servers {
		addrs[i] = s.Addr()
	}
	c := redistest.StartChild(t, "waiter", e.k.name, e.lease.String(), e.name, strings.Join(addrs, ","))
	c.WaitLine(t, "waiting", callBound)
	return c
}
