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

// TestCampaign_cut_short_by_a_stalled_server_leaves_no_leader: a Campaign
// whose ctx ends while the server stalls takes the leadership once the
// stall is over; it must give it back then, not at the end of its lease
// (5 minutes here), so that another candidate leads and the first can
// campaign again.
func TestCampaign_cut_short_by_a_stalled_server_leaves_no_leader(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	name := redistest.Unique(t)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	ctx := redistest.Ctx(t, redistest.Hang)
	e := election.New(redistest.Lockkit(t, rc), name, long)
	warm, err := e.Campaign(ctx, "warm") // load the scripts
	if err != nil {
		t.Fatal(err)
	}
	_ = warm.Resign(ctx)
	srv.Stall(t, 2*time.Second)
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	_, err = e.Campaign(short, "a")
	cancel()
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	b, err := election.New(redistest.Lockkit(t, rc), name, long).Campaign(ctx, "b")
	if err != nil {
		t.Fatalf("Campaign after the cut-short one: %v", err)
	}
	if got, err := e.Leader(ctx); got != b.Leader() || err != nil {
		t.Fatalf("Leader = %+v, %v; want %+v", got, err, b.Leader())
	}
	_ = b.Resign(ctx)
	l, err := e.Campaign(ctx, "again")
	if err != nil {
		t.Fatalf("Campaign again: %v", err)
	}
	_ = l.Resign(ctx)
	redistest.AssertClean(t, rc, name)
}

// TestLeadership_Context_ends_with_ErrLost_when_the_server_stalls_past_the_lease
// stalls the server past the leader's lease: its Context ends with
// ErrLost, a candidate that campaigns afterwards leads with a larger
// term, and the old leader's Resign reports ErrLost.
func TestLeadership_Context_ends_with_ErrLost_when_the_server_stalls_past_the_lease(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	name := redistest.Unique(t)
	opt := lockkit.WithWatchdogTimeout(time.Second)
	ctx := redistest.Ctx(t, redistest.Hang)
	a, err := election.New(redistest.Lockkit(t, rc), name, opt).Campaign(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	srv.Stall(t, 3*time.Second)
	redistest.Receive(t, a.Context().Done(), redistest.Hang, "the leadership's context to end")
	if cause := context.Cause(a.Context()); !errors.Is(cause, lockkit.ErrLost) {
		t.Fatalf("cause = %v, want ErrLost", cause)
	}
	b, err := election.New(redistest.Lockkit(t, srv.Client(t)), name, opt).Campaign(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if b.Leader().Term <= a.Leader().Term {
		t.Fatalf("term %d after %d", b.Leader().Term, a.Leader().Term)
	}
	redistest.WantErr(t, a.Resign(ctx), lockkit.ErrLost)
	_ = b.Resign(ctx)
}

// TestEvery_call_returns_by_its_deadline_against_a_stalled_server stalls
// a real server and makes every call of an election at once, each with a
// short ctx: each returns by then with the ctx's error, Resign included
// (which also runs past an ended ctx, but only for a short clean-up
// time).
func TestEvery_call_returns_by_its_deadline_against_a_stalled_server(t *testing.T) {
	srv, c, name := redistest.OnServer(t)
	l, err := election.New(c, name).Campaign(redistest.Ctx(t, redistest.Hang), "a")
	if err != nil {
		t.Fatal(err)
	}
	e := election.New(c, name)
	calls := map[string]func(context.Context) error{
		"Campaign":    func(ctx context.Context) error { _, err := e.Campaign(ctx, "b"); return err },
		"Resign":      l.Resign,
		"Leader":      func(ctx context.Context) error { _, err := e.Leader(ctx); return err },
		"Observe":     func(ctx context.Context) error { _, err := e.Observe(ctx); return err },
		"ForceUnlock": func(ctx context.Context) error { _, err := election.New(c, name+"-other").ForceUnlock(ctx); return err },
	}
	srv.Stall(t, 3*time.Second)
	redistest.WantDeadlines(t, 200*time.Millisecond, calls)
}
