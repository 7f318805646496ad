package adminfault_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// configLease is the watchdog timeout of the CONFIG SET tests: renewals
// 1.5 s apart leave the Clients' connections idle for longer than the
// 1 s idle timeout one setting gives the server.
const configLease = 4500 * time.Millisecond

// TestConfigSet_of_settings_the_locks_do_not_use_changes_nothing sets,
// while nothing is held, settings an operator may change on a server the
// locks share (keyspace notifications on for every event, and a 1 s idle
// timeout that closes the connections a Client's pool keeps between
// renewals), then takes a lock with waiters of the holder's Client and of
// another: the holds are renewed across two renewal rounds and kept, and
// at the Unlock each waiter is woken by the release and takes the lock
// within a second; nothing is left.
func TestConfigSet_of_settings_the_locks_do_not_use_changes_nothing(t *testing.T) {
	for _, setting := range [][2]string{
		{"notify-keyspace-events", "KEA"},
		{"timeout", "1"},
	} {
		t.Run(setting[0], func(t *testing.T) {
			forEachKindLease(t, configLease, func(t *testing.T, e *env) {
				e.Admin(t, "config", "set", setting[0], setting[1])
				holder := e.Owner(e.A, 0)
				faultkit.MustLock(t, holder)
				ctx := redistest.Ctx(t, redistest.Hang)
				w1, w2 := e.WaitBeside(t, ctx, e.A, 1), e.Wait(t, ctx, e.B, 2)

				renewed(t, e.A, 2)
				if redistest.AnyClosed(holder.Lost()) {
					t.Fatal("hold reported lost")
				}
				faultkit.MustUnlock(t, holder)
				serve(t, wakeBound, w1, w2)
				e.Clean(t, e.Name)
			})
		})
	}
}
