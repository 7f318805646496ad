package multilock_test

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_Unlock_leaves_the_lost_channel_open: the lost channel of a
// hold that Unlock released is never closed (it was not lost), Lost then
// returns nil and Token 0, and the hold's Context ends with a cause
// matching ErrNotHeld.
func TestRedLock_Unlock_leaves_the_lost_channel_open(t *testing.T) {
	clients, lcs, name := threeNodes(t)
	r := multilock.NewRedLock(lcs, name)
	if r.Lost() != nil {
		t.Fatal("Lost() before Lock is not nil")
	}
	redistest.MustLock(t, r)
	lost, hold := r.Lost(), r.Context(context.Background())
	if lost == nil || r.Token() == 0 {
		t.Fatalf("Lost() = %v, Token() = %d for a hold", lost, r.Token())
	}
	redistest.MustUnlock(t, r)
	if redistest.Closed(lost) {
		t.Fatal("Unlock closed the lost channel of a hold it released")
	}
	if r.Lost() != nil || r.Token() != 0 {
		t.Fatalf("after Unlock Lost() = %v, Token() = %d; want nil, 0", r.Lost(), r.Token())
	}
	if hold.Err() == nil {
		t.Fatal("the hold's Context had not ended when Unlock returned")
	}
	redistest.WantErr(t, context.Cause(hold), lockkit.ErrNotHeld)
	assertCleanAll(t, clients, name)
}
