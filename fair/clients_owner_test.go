package fair_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLock_owner_id_on_another_Client_queues_again_at_the_end: two
// Mutexes with one owner id (WithOwner) on two Clients share the id's
// entry in Redis but not a place in memory. When the one on the first
// Client gives up, it takes the entry out; the one on the second queues
// again at its next attempt (its heartbeat), behind the waiter that had
// joined after them, and takes the lock after it.
func TestLock_owner_id_on_another_Client_queues_again_at_the_end(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	holder := e.held()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	quitter := e.mutex(lockkit.WithOwner("o"), fair.WithWaiterTimeout(time.Minute))
	gone := redistest.LockAsync(ctx, quitter)
	e.waitQueue("o")
	// A heartbeat every 100 ms.
	stayer := e.on(redistest.Lockkit(t, srv.Client(t))).mutex(lockkit.WithOwner("o"), fair.WithWaiterTimeout(300*time.Millisecond))
	stays := redistest.LockAsync(redistest.Ctx(t, time.Minute), stayer)
	x := e.mutex(lockkit.WithOwner("x"), fair.WithWaiterTimeout(time.Minute))
	comes := redistest.LockAsync(redistest.Ctx(t, time.Minute), x)
	e.waitQueue("o", "x")

	cancel()
	redistest.WantErr(t, redistest.Receive(t, gone, 10*time.Second, "the cancelled Lock"), lockkit.ErrNotObtained, context.Canceled)
	e.waitQueue("x", "o")
	redistest.MustUnlock(t, holder)
	e.wantTurn(x, comes, 10*time.Second, "x, now first in line", "o")
	e.wantTurn(stayer, stays, 10*time.Second, "o on the other Client, queued again")
}
