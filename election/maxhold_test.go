package election_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// TestLeadership_WithMaxHold_ends_with_ErrLost_before_a_candidate_leads:
// a leader under WithMaxHold is renewed no more once the bound has
// passed: its Context ends with a cause matching ErrLost and
// watchdog.ErrMaxHold, before a waiting candidate leads with a larger
// term, which the observer reports.
func TestLeadership_WithMaxHold_ends_with_ErrLost_before_a_candidate_leads(t *testing.T) {
	_, c, name := redistest.OnServer(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	opt := lockkit.WithWatchdogTimeout(time.Second)
	obs := mustObserve(ctx, t, election.New(c, name))
	a := mustCampaign(ctx, t, election.New(c, name, opt, lockkit.WithMaxHold(time.Second)), "a")
	observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })
	won := make(chan *election.Leadership, 1)
	go func() {
		l, err := election.New(redistest.Lockkit(t, c.Redis()), name, opt).Campaign(ctx, "b")
		if err != nil {
			t.Errorf("Campaign(b): %v", err)
		}
		if a.Context().Err() == nil {
			t.Error("b leads while a's leadership context still lives")
		}
		won <- l
	}()
	redistest.Receive(t, a.Context().Done(), redistest.Hang, "a's leadership to end")
	if cause := context.Cause(a.Context()); !errors.Is(cause, lockkit.ErrLost) || !errors.Is(cause, watchdog.ErrMaxHold) {
		t.Fatalf("cause = %v, want ErrLost and ErrMaxHold", cause)
	}
	b := takesOver(t, won, a, obs, "b to lead")
	redistest.WantErr(t, a.Resign(ctx), lockkit.ErrLost)
	if err := b.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}
