package fair_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLock_head_cut_off_when_the_lock_is_released_takes_it_once_healed:
// the holder releases the lock while a, first in line, is cut off from
// the server (its wake-up is lost with its connection, and an attempt of
// its fails). The cut heals well within a's waiter timeout (6 s): a is
// still first in line, and takes the lock before b, which joined after
// it, within a second of the heal (its attempts after network errors are
// at most 1 s apart), not at its next heartbeat.
func TestLock_head_cut_off_when_the_lock_is_released_takes_it_once_healed(t *testing.T) {
	x := newCutOff(t, 6*time.Second) // a heartbeat every 2 s
	before := x.counter.Scripts()
	x.proxy.Cut()
	redistest.MustUnlock(t, x.holder)
	redistest.Eventually(t, 10*time.Second, "an attempt of a to fail while cut off", func() bool {
		return x.counter.Scripts() >= before+2
	})
	x.proxy.Heal()
	x.e.wantTurn(x.a, x.gotA, 1500*time.Millisecond, "a, first in line, once healed", "b")
	x.e.wantTurn(x.b, x.gotB, 10*time.Second, "b, which joined after a")
}
