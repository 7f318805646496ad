package election_test

import (
	"testing"

	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLeader_is_one_round_trip: Leader sends one command, whether nobody
// or somebody leads (its script loaded beforehand).
func TestLeader_is_one_round_trip(t *testing.T) {
	s := redistest.StartServer(t)
	rc := s.Client(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	e := election.New(redistest.Lockkit(t, rc), name)
	if _, err := e.Leader(ctx); err != nil { // load the script
		t.Fatal(err)
	}
	n := redistest.CountCommands(rc)
	if got, err := e.Leader(ctx); got != (election.Leader{}) || err != nil {
		t.Fatalf("Leader = %+v, %v; want nobody", got, err)
	}
	if n.Total() != 1 {
		t.Errorf("Leader with nobody leading sent %d commands, want 1", n.Total())
	}
	l := mustCampaign(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name), "a")
	n.Reset()
	if got, err := e.Leader(ctx); got != l.Leader() || err != nil {
		t.Fatalf("Leader = %+v, %v; want %+v", got, err, l.Leader())
	}
	if n.Total() != 1 {
		t.Errorf("Leader with a leader sent %d commands, want 1", n.Total())
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}
