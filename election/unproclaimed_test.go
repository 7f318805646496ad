package election_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLeader_reports_nobody_while_the_winner_has_not_proclaimed_itself
// holds up a winner's proclamation: meanwhile Leader reports nobody, the
// observer reports nothing new, and another candidate cannot lead; once
// the proclamation goes through, both report the winner.
func TestLeader_reports_nobody_while_the_winner_has_not_proclaimed_itself(t *testing.T) {
	s, rc, silent := silentServer(t, proclaims)
	defer silent.Off()
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	other := redistest.Lockkit(t, s.Client(t))
	obs := mustObserve(ctx, t, election.New(other, name))
	nextLeader(t, obs, "the first report")
	silent.On()
	won := campaignAsync(ctx, t, election.New(redistest.Lockkit(t, rc), name, lockkit.WithWatchdogTimeout(5*time.Minute)), "a")
	redistest.Eventually(t, redistest.Hang, "the proclamation to be held up", func() bool { return silent.Held() == 1 })
	if got, err := election.New(other, name).Leader(ctx); got != (election.Leader{}) || err != nil {
		t.Fatalf("Leader before the proclamation = %+v, %v; want nobody", got, err)
	}
	try, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err := election.New(other, name).Campaign(try, "b")
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	redistest.NotYet(t, obs, "the observer reported a change before the proclamation")
	silent.Off()
	a := redistest.Receive(t, won, redistest.Hang, "a to lead")
	if a == nil {
		t.FailNow()
	}
	observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })
	if got, err := election.New(other, name).Leader(ctx); got != a.Leader() || err != nil {
		t.Fatalf("Leader = %+v, %v; want %+v", got, err, a.Leader())
	}
	if err := a.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}
