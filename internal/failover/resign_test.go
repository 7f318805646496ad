package failover_test

import (
	"io"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// vacancyBound bounds how long an observer takes to report a vacancy it
// is told of: far less than the leader's lease, after which it would read
// the vacancy anyway.
const vacancyBound = 5 * time.Second

// TestResign_after_a_failover_whose_reply_is_lost_tells_the_observers
// elects a leader with a lease of 5 minutes, with an observer on another
// Client, and fails the deployment over. Then the leader resigns at the
// new master, and the reply is lost (io.EOF, as on a connection the
// failover broke): Resign fails, but the observer, subscribed before the
// failover, reports at once that nobody leads, since the script that
// freed the leadership told it so; Resign called again returns nil.
func TestResign_after_a_failover_whose_reply_is_lost_tells_the_observers(t *testing.T) {
	eachDeployment(t, func(t *testing.T, d deployment) {
		name := pickName(t, kind{names: single}, d)
		rc := d.client(t)
		drop := &redistest.DropReply{Match: scriptOf(name), Err: io.EOF}
		rc.AddHook(drop)
		e := election.New(redistest.Lockkit(t, rc), name, lockkit.WithWatchdogTimeout(longLease))
		a, err := e.Campaign(redistest.Ctx(t, callTimeout), "a")
		if err != nil {
			t.Fatalf("Campaign: %v", err)
		}
		obs, err := election.New(redistest.Lockkit(t, d.client(t)), name).Observe(redistest.Ctx(t, waiterBound+settleBound))
		if err != nil {
			t.Fatalf("Observe: %v", err)
		}
		observed(t, obs, a.Leader(), vacancyBound, "the leader")
		d.replicated(t)
		d.failover(t)
		// Right after the failover, a Resign may fail before it reaches
		// the new master; it is called again until one's reply is lost.
		drop.Arm()
		deadline := time.Now().Add(settleBound)
		for drop.Armed() {
			if err := a.Resign(redistest.Ctx(t, callTimeout)); err == nil {
				t.Fatalf("Resign succeeded without its reply lost")
			} else if time.Now().After(deadline) {
				t.Fatalf("no Resign reached the new master: %v", err)
			}
		}
		observed(t, obs, election.Leader{}, vacancyBound, "nobody to lead, told by the Resign whose reply was lost")
		if err := a.Resign(redistest.Ctx(t, callTimeout)); err != nil {
			t.Fatalf("Resign called again = %v; want nil", err)
		}
	})
}
