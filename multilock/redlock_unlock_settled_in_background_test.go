package multilock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_Unlock_in_doubt_never_called_again_is_settled_in_the_background:
// over three masters, the releases of r's Unlock reach node 0 alone (those
// to nodes 1 and 2 are never sent), so its outcome is unknown and r keeps
// the hold; nobody calls Unlock again. Nodes 1 and 2 settle their parts in
// the background: another owner takes the lock long before the lease,
// which the nodes' watchdogs renew for minutes, could end, r then holds
// nothing (its Token is 0 and its Context ended with ErrNotHeld), and its
// lost signal stays open. r's next Unlock returns that outcome, nil, and
// the one after finds nothing held.
func TestRedLock_Unlock_in_doubt_never_called_again_is_settled_in_the_background(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 3)
	refuse := hookEach(clients[1:], func() *redistest.RefuseSend { return &redistest.RefuseSend{Match: runsRelease} })
	lcs := lockkits(t, clients)
	name := redistest.Unique(t)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	r := multilock.NewRedLock(lcs, name, long, multilock.WithNodeTimeout(time.Second))
	redistest.MustLock(t, r)
	lost := r.Lost()

	redLockUnlockInDoubt(ctx, t, r, refuse, "Unlock whose releases reached node 0 alone")
	for i, h := range refuse {
		if h.Armed() {
			t.Fatalf("node %d's release was sent", i+1)
		}
	}
	other := multilock.NewRedLock(lcs, name, long)
	if err := other.Lock(ctx); err != nil {
		t.Fatalf("Lock by another owner after an Unlock in doubt never called again = %v; want the lock well within the lease", err)
	}
	redistest.MustUnlock(t, other)
	redistest.Eventually(t, 10*time.Second, "r to hold nothing once its nodes settled the Unlock", func() bool { return r.Token() == 0 })
	if cause := context.Cause(r.Context(ctx)); !errors.Is(cause, lockkit.ErrNotHeld) {
		t.Fatalf("r's Context after its Unlock was settled ended with %v; want ErrNotHeld", cause)
	}
	if redistest.Closed(lost) {
		t.Fatal("the releases settled in the background closed r's lost signal")
	}
	if err := r.Unlock(ctx); err != nil {
		t.Fatalf("Unlock after its releases were settled in the background = %v, want nil", err)
	}
	redistest.WantErr(t, r.Unlock(ctx), lockkit.ErrNotHeld)
	assertCleanAll(t, clients, name)
}
