package election_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestElections_of_one_name_with_other_prefixes_are_independent: two
// candidates of one name under two prefixes both lead at once; Leader and
// Observe under each prefix report that prefix's leader only, and a
// Resign under one leaves the other's leader in place.
func TestElections_of_one_name_with_other_prefixes_are_independent(t *testing.T) {
	_, c, name := redistest.OnServer(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	p1, p2 := lockkit.WithPrefix("one"), lockkit.WithPrefix("two")
	obs := mustObserve(ctx, t, election.New(c, name, p2))
	nextLeader(t, obs, "the first report")
	a := mustCampaign(ctx, t, election.New(c, name, p1), "a")
	b := mustCampaign(ctx, t, election.New(c, name, p2), "b")
	if got := observeUntil(t, obs, "b to lead", func(l election.Leader) bool { return l.Value != "" }); got != b.Leader() {
		t.Fatalf("observer under the second prefix reported %+v, want %+v", got, b.Leader())
	}
	for _, tt := range []struct {
		opt  lockkit.Option
		want election.Leader
	}{{p1, a.Leader()}, {p2, b.Leader()}} {
		if got, err := election.New(c, name, tt.opt).Leader(ctx); got != tt.want || err != nil {
			t.Errorf("Leader = %+v, %v; want %+v", got, err, tt.want)
		}
	}
	if err := a.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := election.New(c, name, p2).Leader(ctx); got != b.Leader() || err != nil {
		t.Fatalf("Leader under the second prefix after the first's Resign = %+v, %v; want %+v", got, err, b.Leader())
	}
	if err := b.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}
