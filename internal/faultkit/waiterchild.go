package faultkit

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// waiterChild is a process that waits for a lock: it takes the lock with
// its owner, prints "waiting" once its Lock waits, "locked" once it holds
// the lock, and "unlocked" once it gave it back. Its arguments are
// startChild's.
func waiterChild(ks []Kind, args []string) {
	tr := &lockkit.Trace{WaitStart: func(lockkit.WaitStartInfo) { redistest.ChildPrintf("waiting") }}
	o, closeAll := childOwner(ks, "waiter", args, tr)
	defer closeAll()
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

// StartWaiter starts a waiter child process (see Children) for the i-th
// owner of e's lock, and returns once its Lock waits. It prints
// "locked" once it holds the lock, and "unlocked" once it gave it back.
func (e *Env) StartWaiter(t *testing.T, i int) *redistest.Child {
	t.Helper()
	c := e.startChild(t, "waiter", i)
	c.WaitLine(t, "waiting", CallBound)
	return c
}
