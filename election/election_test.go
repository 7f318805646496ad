package election_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestNew_invalid_arguments_return_ErrInvalid(t *testing.T) {
	c, _ := redistest.Silent(t)
	cases := redistest.Invalids(c, election.New, []redistest.Invalid[*election.Election]{
		{Name: "tiny watchdog timeout", V: election.New(c, "x", lockkit.WithWatchdogTimeout(time.Microsecond)), Want: "WithWatchdogTimeout"},
		{Name: "owner", V: election.New(c, "x", lockkit.WithOwner("o")), Want: "WithOwner: does not apply to an election lock"},
	})
	ctx := context.Background()
	redistest.EachInvalid(t, cases, func(t *testing.T, e *election.Election, want string) {
		_, err := e.Campaign(ctx, "v")
		redistest.WantInvalid(t, "Campaign", err, want)
		_, err = e.Leader(ctx)
		redistest.WantInvalid(t, "Leader", err, want)
		_, err = e.Observe(ctx)
		redistest.WantInvalid(t, "Observe", err, want)
	})
}

// TestCampaign_one_leader_at_a_time_and_terms_increase has three
// candidates on two Clients campaign: one leads, Leader and Observe report
// it, and each Resign hands the leadership to a waiting candidate with a
// larger term.
func TestCampaign_one_leader_at_a_time_and_terms_increase(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, redistest.Hang)
		name := redistest.Unique(t)
		c1, c2 := redistest.Lockkit(t, rc), redistest.Lockkit(t, rc)
		obs, err := election.New(c2, name).Observe(ctx)
		if err != nil {
			t.Fatalf("Observe: %v", err)
		}
		if l := nextLeader(t, obs, "the first report"); l != (election.Leader{}) {
			t.Fatalf("first report of a new election = %+v, want nobody", l)
		}

		type won struct {
			value string
			l     *election.Leadership
			err   error
		}
		wins := make(chan won, 3)
		for i, c := range []*lockkit.Client{c1, c2, c1} {
			v := []string{"a", "b", "c"}[i]
			go func() {
				l, err := election.New(c, name).Campaign(ctx, v)
				wins <- won{v, l, err}
			}()
		}
		var last int64
		for range 3 {
			w := redistest.Receive(t, wins, redistest.Hang, "a leader")
			if w.err != nil {
				t.Fatalf("Campaign(%s): %v", w.value, w.err)
			}
			got := w.l.Leader()
			if got.Value != w.value || got.Term <= last {
				t.Fatalf("leadership = %+v, want value %s and a term above %d", got, w.value, last)
			}
			last = got.Term
			if l, err := election.New(c1, name).Leader(ctx); l != got || err != nil {
				t.Fatalf("Leader = %+v, %v; want %+v", l, err, got)
			}
			observeUntil(t, obs, "the leader "+w.value, func(l election.Leader) bool { return l == got })
			// Nobody else leads meanwhile.
			select {
			case w2 := <-wins:
				t.Fatalf("%s won too while %s leads (%v)", w2.value, w.value, w2.err)
			default:
			}
			if err := w.l.Context().Err(); err != nil {
				t.Fatalf("leadership context ended while leading: %v", err)
			}
			if err := w.l.Resign(ctx); err != nil {
				t.Fatalf("Resign: %v", err)
			}
			if cause := context.Cause(w.l.Context()); !errors.Is(cause, lockkit.ErrNotHeld) {
				t.Fatalf("leadership context after Resign: cause %v, want ErrNotHeld", cause)
			}
			redistest.WantErr(t, w.l.Resign(ctx), lockkit.ErrNotHeld)
		}
		observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
		redistest.AssertClean(t, rc, name)
	})
}

func TestCampaign_while_leading_is_invalid_until_Resign(t *testing.T) {
	_, rc := redistest.Mini(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	e := election.New(redistest.Lockkit(t, rc), redistest.Unique(t))
	l, err := e.Campaign(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Campaign(ctx, "b")
	redistest.WantErr(t, err, lockkit.ErrInvalid)
	if err := l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	l, err = e.Campaign(ctx, "b")
	if err != nil || l.Leader().Value != "b" {
		t.Fatalf("Campaign after Resign = %+v, %v", l, err)
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestCampaign_ctx_deadline_matches_both_errors(t *testing.T) {
	_, rc := redistest.Mini(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	leader, err := election.New(c, name).Campaign(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	e := election.New(c, name)
	_, err = e.Campaign(short, "b")
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	// A failed campaign leaves the candidate free to campaign again.
	if err := leader.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := e.Campaign(ctx, "b")
	if err != nil {
		t.Fatalf("Campaign after a failed one: %v", err)
	}
	_ = l.Resign(ctx)
}

// TestLeadership_Context_ends_when_the_leadership_is_lost removes the
// election's hash under its leader: the watchdog finds the hold gone, the
// leadership's context ends with ErrLost, and a waiting candidate leads.
func TestLeadership_Context_ends_when_the_leadership_is_lost(t *testing.T) {
	mr, rc := redistest.Mini(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	opt := lockkit.WithWatchdogTimeout(300 * time.Millisecond)
	l, err := election.New(c, name, opt).Campaign(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	obs, err := election.New(c, name).Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	observeUntil(t, obs, "a to lead", func(x election.Leader) bool { return x.Value == "a" })
	next := campaignAsync(ctx, t, election.New(c, name, opt), "b")
	mr.Del("lockkit:{" + name + "}")
	redistest.Receive(t, l.Context().Done(), redistest.Hang, "the leadership's context to end")
	if cause := context.Cause(l.Context()); !errors.Is(cause, lockkit.ErrLost) {
		t.Fatalf("cause = %v, want ErrLost", cause)
	}
	redistest.WantErr(t, l.Resign(ctx), lockkit.ErrLost)
	b := takesOver(t, next, l, obs, "b to lead")
	_ = b.Resign(ctx)
}

func TestObserve_channel_closes_with_its_ctx_and_the_Client(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := lockkit.New(rc)
	name := redistest.Unique(t)
	ctx, cancel := context.WithCancel(context.Background())
	obs, err := election.New(c, name).Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nextLeader(t, obs, "the first report")
	cancel()
	for range obs {
	}
	obs, err = election.New(c, name).Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	for range obs {
	}
}
