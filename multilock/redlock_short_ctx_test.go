package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_with_a_ctx_shorter_than_the_node_timeout_tells_of_the_quorum:
// two of three nodes stop answering, and Lock and TryLock are given a ctx
// that ends before the node timeout (250 ms by default): their only round
// is cut short by ctx, with one node of three answering. Their error
// matches ErrQuorum beside ErrNotObtained and the ctx's error, as it does
// with a longer ctx, and so does the error of a multi-lock of that
// RedLock. Once the nodes answer again, nothing is left on them.
func TestRedLock_with_a_ctx_shorter_than_the_node_timeout_tells_of_the_quorum(t *testing.T) {
	servers, clients := masters(t, 3)
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lockkits(t, clients), name)
	redistest.MustLock(t, r) // scripts loaded, connections open
	redistest.MustUnlock(t, r)
	servers[1].Stall(t, 3*time.Second)
	servers[2].Stall(t, 3*time.Second)

	calls := append(lockCalls(r), lockCall{"multi-lock's Lock", multilock.New([]lockkit.Locker{r}).Lock})
	for _, c := range calls {
		err := c.call(redistest.Ctx(t, 150*time.Millisecond))
		if err != nil {
			t.Logf("%s: %v", c.what, err)
		}
		redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded, lockkit.ErrQuorum)
	}
	for _, c := range clients {
		givenBack(t, c, name)
	}
}
