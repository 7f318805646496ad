package reentrant_test

import (
	"sync/atomic"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_an_Unlock_in_doubt_across_a_restart_that_lost_the_hold:
// the server stops while a Mutex in cohort mode holds; its last Unlock
// fails, in doubt, another Mutex of the process waits in memory
// meanwhile, and the server comes back empty. The cohort settles that Unlock itself: the
// holder's next Unlock reports the hold lost, and the waiter takes a fresh
// hold from Redis, with a larger token, which never overlaps the hold of
// another process that locks meanwhile.
func TestLocalHandoff_an_Unlock_in_doubt_across_a_restart_that_lost_the_hold(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	lcA, lcB := redistest.Lockkit(t, srv.Client(t)), redistest.Lockkit(t, srv.Client(t))
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	holder, waiter := reentrant.New(lcA, name, handoff), reentrant.New(lcA, name, handoff)
	redistest.MustLock(t, holder)
	before := holder.Token()
	srv.Stop(t)
	if err := holder.Unlock(ctx); err == nil {
		t.Fatal("Unlock against a stopped server = nil; want an error")
	}
	var inside atomic.Int32
	waiterDone := make(chan error, 1)
	go func() {
		if err := waiter.Lock(ctx); err != nil {
			waiterDone <- err
			return
		}
		if waiter.Token() <= before {
			t.Errorf("the waiter's token %d after the lost hold's %d: want a larger one", waiter.Token(), before)
		}
		waiterDone <- holdAlone(ctx, waiter, &inside)
	}()
	waitLocal(t, holder, 1)
	srv.Restart(t)
	other := reentrant.New(lcB, name)
	otherDone := make(chan error, 1)
	go func() {
		if err := other.Lock(ctx); err != nil {
			otherDone <- err
			return
		}
		otherDone <- holdAlone(ctx, other, &inside)
	}()
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
	if err := redistest.Receive(t, waiterDone, redistest.Hang, "the waiter's Lock and Unlock"); err != nil {
		t.Fatal(err)
	}
	if err := redistest.Receive(t, otherDone, redistest.Hang, "the other process's Lock and Unlock"); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.AssertClean(t, c, name)
}
