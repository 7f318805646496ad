package fair_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLock_waiter_that_finds_another_kind_leaves_the_queue: while a fair
// waiter queues, the name passes to a lock of another kind (the fair hold
// vanished, and a reentrant lock took the name; the waiter's attempts are
// held up meanwhile, so that none takes the free lock). The waiter's next
// attempt (its heartbeat) gets ErrWrongKind, which ends its Lock, and its
// entry is out of the queue by the time Lock returns; the other kind's
// hold is left as it was.
func TestLock_waiter_that_finds_another_kind_leaves_the_queue(t *testing.T) {
	held := &redistest.Silence{Match: isAcquire, Max: redistest.Hang}
	defer held.Off()
	e, lc, counter := twoClients(t, held)
	e.held()
	// A heartbeat every 100 ms.
	w := e.on(lc).mutex(lockkit.WithOwner("w"), fair.WithWaiterTimeout(300*time.Millisecond))
	got := redistest.LockAsync(redistest.Ctx(t, time.Minute), w)
	redistest.Eventually(t, 10*time.Second, "w asleep", func() bool { return counter.Scripts() == 2 })
	held.On()
	if err := e.c.Del(redistest.Ctx(t, time.Second), lockKey(e.name)).Err(); err != nil {
		t.Fatal(err)
	}
	r := reentrant.New(e.lc, e.name)
	redistest.MustLock(t, r)
	held.Off()
	redistest.WantErr(t, redistest.Receive(t, got, 10*time.Second, "the fair waiter's Lock"), lockkit.ErrWrongKind)
	e.wantQueue()
	redistest.WantHoldCount(t, r, 1)
	redistest.MustUnlock(t, r)
}
