package pausefault_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/faultkit"
)

// TestWaiterStopped_first_in_line_holds_the_others_up_no_longer_than_documented
// has a waiter process first in line and a waiter of another process
// behind it, both listening for a release, stops the first and releases
// the lock: the other waiter takes it within heldUp of the stop; once
// resumed, the stopped waiter takes the lock in its turn; nothing is left
// at the end.
func TestWaiterStopped_first_in_line_holds_the_others_up_no_longer_than_documented(t *testing.T) {
	forEachKind(t, waiterLease, func(t *testing.T, e *env) {
		holder, c := e.childFirstInLine(t)
		w := e.wait(t, e.B, 2)
		e.listening(t, 2)

		c.Stop(t)
		stopped := time.Now()
		faultkit.MustUnlock(t, holder)
		taken(t, w, e.heldUp()+slack, "the waiter behind the stopped one")
		t.Logf("%s taken %v after the stop", e.K.Name, time.Since(stopped))
		faultkit.MustUnlock(t, w.Owner)

		e.resumedTakesItsTurn(t, c)
	})
}
