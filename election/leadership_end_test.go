package election_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLeadership_Context_ends_with_ErrNotHeld_when_its_own_Election_force_unlocks:
// a leader's Election that force-unlocks the election frees its own
// leadership as Resign would: the Leadership's Context has ended when
// ForceUnlock returns, without waiting for the watchdog (whose lease is
// far longer than the test), with a cause matching ErrNotHeld.
func TestLeadership_Context_ends_with_ErrNotHeld_when_its_own_Election_force_unlocks(t *testing.T) {
	_, c, name := redistest.OnServer(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	e := election.New(c, name, lockkit.WithWatchdogTimeout(redistest.Hang*10))
	l := mustCampaign(ctx, t, e, "a")
	if ok, err := e.ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
	}
	if l.Context().Err() == nil {
		t.Fatal("the leadership's context still lives after ForceUnlock returned")
	}
	if cause := context.Cause(l.Context()); !errors.Is(cause, lockkit.ErrNotHeld) {
		t.Fatalf("cause = %v, want ErrNotHeld", cause)
	}
	redistest.WantErr(t, l.Resign(ctx), lockkit.ErrNotHeld)
}

// TestResign_after_the_leadership_was_lost_lets_the_Election_campaign_again
// removes the election's hash under its leader: once its Context ended,
// Resign returns ErrLost, and the same Election campaigns again and leads
// with a larger term.
func TestResign_after_the_leadership_was_lost_lets_the_Election_campaign_again(t *testing.T) {
	_, c, name := redistest.OnServer(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	e := election.New(c, name, lockkit.WithWatchdogTimeout(redistest.Hang/10))
	l := mustCampaign(ctx, t, e, "a")
	if err := c.Redis().Del(ctx, "lockkit:{"+name+"}").Err(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, l.Context().Done(), redistest.Hang, "the leadership's context to end")
	_, err := e.Campaign(ctx, "b")
	redistest.WantErr(t, err, lockkit.ErrInvalid)
	redistest.WantErr(t, l.Resign(ctx), lockkit.ErrLost)
	again := mustCampaign(ctx, t, e, "b")
	if again.Leader().Term <= l.Leader().Term {
		t.Fatalf("term %d after %d", again.Leader().Term, l.Leader().Term)
	}
	if err := again.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}
