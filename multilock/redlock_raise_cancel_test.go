package multilock_test

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_ctx_cancelled_while_raising_the_fencing_counter_leaves_nothing_held:
// node 0's counter is far ahead, so nodes 1 and 2 must have theirs raised
// to the hold's token, and neither answers that request (the node timeout
// is far longer than the test). Lock, and TryLock, whose ctx is cancelled
// then, return at once an error matching ErrNotObtained and
// context.Canceled, with r holding nothing; the parts the round took are
// given back, the raises cut short change no counter, and once the nodes
// answer the next Lock takes the lock with a larger token.
func TestRedLock_ctx_cancelled_while_raising_the_fencing_counter_leaves_nothing_held(t *testing.T) {
	clients, name, fence, ahead, silent := raisesHeldUp(t)
	defer silent.Off()
	r := multilock.NewRedLock(lockkits(t, clients), name, multilock.WithNodeTimeout(2*redistest.Hang))
	silent.On()
	for _, tt := range lockCalls(r) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- tt.call(ctx) }()
		redistest.Eventually(t, redistest.Hang, tt.what+"'s raises to be held up", func() bool { return silent.Held() == 2 })
		cancel()
		err := redistest.Receive(t, done, redistest.Hang, tt.what+" cancelled while raising the counters")
		redistest.WantErr(t, err, lockkit.ErrNotObtained, context.Canceled)
		if r.Token() != 0 || r.Lost() != nil {
			t.Fatalf("%s cancelled while raising the counters left a hold", tt.what)
		}
		for _, c := range clients {
			waitFreeOn(t, c, name, tt.what+"'s parts to be given back")
		}
		// Let the raises cut short go, so that only the next call's are
		// held up.
		silent.Off()
		redistest.Eventually(t, redistest.Hang, "the late raises to run", func() bool { return silent.Held() == 0 })
		silent.On()
	}
	silent.Off()
	for i, c := range clients[1:] {
		if n, err := c.Get(redistest.Ctx(t, redistest.Hang), fence).Int64(); err == nil && n >= ahead {
			t.Fatalf("node %d: a raise that came after its hold was given back set the counter to %d", i+1, n)
		}
	}
	redistest.MustLock(t, r)
	if r.Token() <= ahead {
		t.Fatalf("Token() = %d, want above node 0's counter %d", r.Token(), ahead)
	}
	redistest.MustUnlock(t, r)
	assertCleanAll(t, clients, name)
}
