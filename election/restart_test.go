package election_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestElection_across_a_Redis_restart restarts the server, empty, under a
// leader: the leader's context ends with ErrLost, a waiting candidate
// leads with a larger term (tokens outlive the lost counter), and an
// observer reports it.
func TestElection_across_a_Redis_restart(t *testing.T) {
	s := redistest.StartServer(t)
	rc := s.Client(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	name := redistest.Unique(t)
	opt := lockkit.WithWatchdogTimeout(time.Second)
	a := mustCampaign(ctx, t, election.New(redistest.Lockkit(t, rc), name, opt), "a")
	obs := mustObserve(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name))
	observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })
	bc := redistest.Lockkit(t, s.Client(t))
	won := campaignAsync(ctx, t, election.New(bc, name, opt), "b")
	redistest.Eventually(t, redistest.Hang, "b to wait", func() bool {
		return bc.Notifier().Sleeping(core.SleepChannel(bc, core.KeysFor(bc, name).Channel)) == 1
	})

	s.Restart(t)
	redistest.Receive(t, a.Context().Done(), redistest.Hang, "a's leadership to end")
	if cause := context.Cause(a.Context()); !errors.Is(cause, lockkit.ErrLost) {
		t.Fatalf("a's leadership ended with %v, want a loss", cause)
	}
	b := takesOver(t, won, a, obs, "b to lead")
	if err := b.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}
