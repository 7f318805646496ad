package adminfault_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestServerPaused_past_the_lease_the_holder_is_told_before_the_pause_ends
// pauses the servers (CLIENT PAUSE WRITE, and ALL) or stalls them (DEBUG
// SLEEP) for 2.5 s while a lock with a 1 s lease is held, so that the watchdog's renewals are held up
// past the lease, and waiters of the holder's Client and of another
// wait: the holder is told its hold is lost before the pause ends (so
// before anyone else can take the lock); its Unlock returns ErrLost; the
// waiters take the lock after the pause, with larger tokens, one after
// the other; nothing is left.
func TestServerPaused_past_the_lease_the_holder_is_told_before_the_pause_ends(t *testing.T) {
	for _, p := range []struct {
		name  string
		pause func(t *testing.T, e *env, d time.Duration)
	}{
		{"CLIENT PAUSE WRITE", func(t *testing.T, e *env, d time.Duration) { e.pause(t, d, "WRITE") }},
		{"CLIENT PAUSE ALL", func(t *testing.T, e *env, d time.Duration) { e.pause(t, d, "ALL") }},
		{"DEBUG SLEEP", func(t *testing.T, e *env, d time.Duration) {
			for _, s := range e.Servers {
				s.Stall(t, d)
			}
		}},
	} {
		t.Run(p.name, func(t *testing.T) {
			forEachKind(t, func(t *testing.T, e *env) {
				holder, old := e.held(t)
				w1, w2 := e.waiters(t)

				p.pause(t, e, 2500*time.Millisecond)
				e.unpaused(t)
				if !redistest.AnyClosed(holder.Lost()) {
					t.Error("holder not told its hold was lost by the end of a pause past its lease")
				}
				if err := holder.Unlock(redistest.Ctx(t, callBound)); !errors.Is(err, lockkit.ErrLost) {
					t.Errorf("Unlock of the hold lost in the pause = %v, want ErrLost", err)
				}
				serveAfter(t, 2*lease+lostSlack, old, w1, w2)
				e.Clean(t, e.Name)
			})
		})
	}
}
