package pausefault_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/faultkit"
)

// waiterLease is the watchdog timeout of the tests of a stopped waiter: the
// holder's lease, which a waiter caps its sleep at, is far longer than
// handoff.
const waiterLease = 2 * time.Second

// handoff is how long a release keeps the lock free for the process it
// woke (README, "How waiting works").
const handoff = 100 * time.Millisecond

// TestWaiterArriving_while_the_lock_is_kept_for_a_stopped_process_takes_it_once_the_keep_ends
// stops a waiter process that is first in line, releases the lock, which
// wakes that process and is kept for it for a moment, and starts another
// process's Lock at once, while the lock is kept: that Lock takes the lock
// once the stopped process's turn has passed (see heldUp), not a lease
// later; once resumed, the stopped waiter takes the lock in its turn;
// nothing is left at the end.
func TestWaiterArriving_while_the_lock_is_kept_for_a_stopped_process_takes_it_once_the_keep_ends(t *testing.T) {
	forEachKind(t, waiterLease, func(t *testing.T, e *env) {
		holder, c := e.childFirstInLine(t)

		c.Stop(t)
		stopped := time.Now()
		faultkit.MustUnlock(t, holder)
		w := e.Owner(e.B, 2)
		taken(t, faultkit.Waiter{Owner: w, Done: lockAsync(t, w)}, e.heldUp()+slack, "a Lock started while the lock was kept for the stopped process")
		t.Logf("%s taken %v after the stop", e.K.Name, time.Since(stopped))
		faultkit.MustUnlock(t, w)

		e.resumedTakesItsTurn(t, c)
	})
}

// heldUp is how long, from its stop, a waiter that stopped while first in
// line may hold up the others of e's kind: the hand-off of a release that
// wakes one process, or for the kinds whose waiters queue in Redis, until
// its place has lapsed (see lapse).
func (e *env) heldUp() time.Duration {
	if lapse(e.K) > 0 {
		return lapse(e.K)
	}
	return handoff
}
