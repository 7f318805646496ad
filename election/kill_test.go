package election_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestElection_across_a_Redis_kill_past_the_lease kills the server under a
// leader while a candidate and an observer of two other Clients wait, and
// keeps it down past the leader's lease: the leader's Context ends with a
// cause matching ErrLost while the server is down; the candidate and the
// observer wait it out (the observer's channel stays open), and once the
// server is back, empty, the candidate leads with a larger term and the
// observer reports it.
func TestElection_across_a_Redis_kill_past_the_lease(t *testing.T) {
	s := redistest.StartServer(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	opt := lockkit.WithWatchdogTimeout(time.Second)
	// b has a default lease: no renewal missed under load.
	a, obs, won := contest(ctx, t, s, redistest.Lockkit(t, s.Client(t)), redistest.Lockkit(t, s.Client(t)), name, opt)

	s.Kill(t)
	redistest.Receive(t, a.Context().Done(), redistest.Hang, "the leader's Context to end while the server is down")
	endedLost(t, a, "with the server down")
	s.Restart(t)
	b := succeeds(t, won, a, obs, "b to lead")
	redistest.WantErr(t, a.Resign(ctx), lockkit.ErrLost)
	if err := b.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
	redistest.AssertClean(t, s.Client(t), name)
}
