package election_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestElection_restart_from_older_data_brings_back_a_resigned_leader_until_its_lease_ends
// saves the data (RDB or AOF) while a leads, has a resign and b lead, then
// restarts the server from the saved data: b's leadership ends with
// ErrLost within a renewal interval; Leader and an observer report a,
// with its older term, though a's process leads no more, until a's
// restored lease ends; then a candidate c leads, within that lease, with a
// term larger than b's, and the observer reports it.
func TestElection_restart_from_older_data_brings_back_a_resigned_leader_until_its_lease_ends(t *testing.T) {
	for _, p := range []redistest.Persistence{redistest.RDB, redistest.AOF} {
		t.Run(p.String(), func(t *testing.T) {
			const wd = 2 * time.Second
			s := redistest.StartPersistent(t, 1, p)[0]
			ctx := redistest.Ctx(t, redistest.Hang)
			name := redistest.Unique(t)
			opt := lockkit.WithWatchdogTimeout(wd)
			ea := election.New(redistest.Lockkit(t, s.Client(t)), name, opt)
			a := mustCampaign(ctx, t, ea, "a")
			snap := s.Snapshot(t)
			if err := a.Resign(ctx); err != nil {
				t.Fatal(err)
			}
			b := mustCampaign(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name, opt), "b")
			obs := mustObserve(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name))
			observeUntil(t, obs, "b to lead", func(l election.Leader) bool { return l == b.Leader() })

			s.RestartFrom(t, snap)
			redistest.Receive(t, b.Context().Done(), wd/3+500*time.Millisecond, "b's leadership to end")
			if cause := context.Cause(b.Context()); !errors.Is(cause, lockkit.ErrLost) {
				t.Fatalf("b's leadership ended with %v, want a loss", cause)
			}
			if got, err := ea.Leader(ctx); got != a.Leader() || err != nil {
				t.Errorf("Leader after the restart = %+v, %v; want the restored %+v", got, err, a.Leader())
			}
			observeUntil(t, obs, "the observer to report a again", func(l election.Leader) bool { return l == a.Leader() })
			if cause := context.Cause(a.Context()); !errors.Is(cause, lockkit.ErrNotHeld) {
				t.Errorf("a's resigned leadership's Context = %v, want ended with ErrNotHeld", cause)
			}
			won := campaignAsync(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name, opt), "c")
			c := redistest.Receive(t, won, wd+500*time.Millisecond, "c to lead within a's restored lease")
			if c == nil {
				t.FailNow()
			}
			if c.Leader().Term <= b.Leader().Term {
				t.Errorf("c's term %d is not larger than b's %d", c.Leader().Term, b.Leader().Term)
			}
			observeUntil(t, obs, "c to lead", func(l election.Leader) bool { return l == c.Leader() })
			if err := c.Resign(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
