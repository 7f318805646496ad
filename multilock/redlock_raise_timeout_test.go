package multilock_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_node_timeout_bounds_raising_the_fencing_counter: node 0's
// counter is far ahead, so nodes 1 and 2 must have theirs raised to the
// hold's token, and neither answers that request. Each is bounded by the
// node timeout: TryLock returns a quorum failure long before the nodes
// answer, and gives back every part it took.
func TestRedLock_node_timeout_bounds_raising_the_fencing_counter(t *testing.T) {
	clients, name, _, _, silent := raisesHeldUp(t)
	defer silent.Off()
	r := multilock.NewRedLock(lockkits(t, clients), name, multilock.WithNodeTimeout(100*time.Millisecond))
	silent.On()
	wantTryLockFails(t, r, lockkit.ErrQuorum, "took its fencing token")
	if n := silent.Held(); n != 2 {
		t.Fatalf("%d raises held up, want 2", n)
	}
	assertCleanAll(t, clients, name)
}
