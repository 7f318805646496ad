package election_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestResign_whose_reply_is_lost_tells_the_observers loses the reply of a
// Resign whose release took effect: Resign fails, but the observer, whose
// leader has a lease far longer than the test, sees at once that nobody
// leads, before Resign is called again; the second Resign settles it.
func TestResign_whose_reply_is_lost_tells_the_observers(t *testing.T) {
	s, rc, drop := droppingServer(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	e := election.New(redistest.Lockkit(t, rc), name, lockkit.WithWatchdogTimeout(5*time.Minute))
	// Load the scripts first.
	warm := mustCampaign(ctx, t, e, "warm")
	if err := warm.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	a := mustCampaign(ctx, t, e, "a")
	obs := mustObserve(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name))
	observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })

	drop.Arm()
	redistest.WantErr(t, a.Resign(ctx), redistest.ErrReplyDropped)
	if drop.Armed() {
		t.Fatal("the release's reply was not dropped")
	}
	vacancyWithin(t, obs, 5*time.Second)
	if err := a.Resign(ctx); err != nil {
		t.Fatalf("Resign again = %v, want nil", err)
	}
	redistest.AssertClean(t, rc, name)
}
