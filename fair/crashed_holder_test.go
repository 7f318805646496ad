package fair_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLock_crashed_holder_delays_the_queue_by_at_most_a_heartbeat: the
// waiter ahead takes the lock with a short fixed lease and never unlocks,
// as a holder that crashed; the waiter behind last looked while the first
// holder (a 30 s lease) held the lock, so only its heartbeat (a third of
// its waiter timeout, 1 s) tells it of the new holder, whose lease has
// ended by then: it takes over then, not when the old holder's lease
// would have ended.
func TestLock_crashed_holder_delays_the_queue_by_at_most_a_heartbeat(t *testing.T) {
	e := newLockEnv(t, redistest.StartServer(t).Client(t))
	holder := e.held()
	w := e.mutex(lockkit.WithOwner("w"), lockkit.WithLease(200*time.Millisecond), fair.WithWaiterTimeout(time.Minute))
	gotW := redistest.LockAsync(redistest.Ctx(t, time.Minute), w)
	e.waitQueue("w")
	x := e.mutex(lockkit.WithOwner("x"), fair.WithWaiterTimeout(3*time.Second))
	gotX := redistest.LockAsync(redistest.Ctx(t, time.Minute), x)
	e.waitQueue("w", "x")
	redistest.MustUnlock(t, holder)
	acquired(t, gotW, 10*time.Second, "w") // and never unlocks
	// A heartbeat, with room for a loaded machine; the old holder's lease
	// would end after 30 s.
	e.wantTurn(x, gotX, 5*time.Second, "x once w's lease ended")
}
