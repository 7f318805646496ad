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

// ctxKey is the key of a value carried by a Campaign's ctx.
type ctxKey struct{}

// TestCampaign_ctx_ended_after_winning_does_not_end_the_leadership: the
// ctx given to Campaign bounds only the campaign; the Leadership's
// Context carries its values, not its end. Resign with that ended ctx
// still resigns.
func TestCampaign_ctx_ended_after_winning_does_not_end_the_leadership(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		c := redistest.Lockkit(t, rc)
		ctx, cancel := context.WithCancel(context.WithValue(redistest.Ctx(t, redistest.Hang), ctxKey{}, "v"))
		l := mustCampaign(ctx, t, election.New(c, name), "a")
		cancel()
		if err := l.Context().Err(); err != nil || l.Context().Value(ctxKey{}) != "v" {
			t.Fatalf("leadership context after the campaign's ctx ended: err %v, value %v; want nil, v", err, l.Context().Value(ctxKey{}))
		}
		check := redistest.Ctx(t, redistest.Hang)
		if got, err := election.New(c, name).Leader(check); got != l.Leader() || err != nil {
			t.Fatalf("Leader = %+v, %v; want %+v", got, err, l.Leader())
		}
		if err := l.Resign(ctx); err != nil {
			t.Fatalf("Resign with an ended ctx = %v", err)
		}
		if got, err := election.New(c, name).Leader(check); got != (election.Leader{}) || err != nil {
			t.Fatalf("Leader after Resign = %+v, %v; want nobody", got, err)
		}
	})
}

// TestResign_with_an_ended_ctx_hands_over_at_once: with a lease far
// longer than the test, only the release and the messages of Resign can
// let a waiting candidate lead and the observer see it in time.
func TestResign_with_an_ended_ctx_hands_over_at_once(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		c := redistest.Lockkit(t, rc)
		ctx := redistest.Ctx(t, redistest.Hang)
		long := lockkit.WithWatchdogTimeout(5 * time.Minute)
		obs := mustObserve(ctx, t, election.New(c, name))
		a := mustCampaign(ctx, t, election.New(c, name, long), "a")
		observeUntil(t, obs, "a to lead", func(x election.Leader) bool { return x == a.Leader() })
		next := campaignAsync(ctx, t, election.New(redistest.Lockkit(t, rc), name, long), "b")
		ended, cancel := context.WithCancel(context.Background())
		cancel()
		if err := a.Resign(ended); err != nil {
			t.Fatalf("Resign with an ended ctx = %v", err)
		}
		b := takesOver(t, next, a, obs, "b to lead")
		_ = b.Resign(ctx)
	})
}

// TestCampaign_with_an_ended_ctx_matches_both_errors and takes nothing;
// so does Observe, which returns no channel.
func TestCampaign_with_an_ended_ctx_matches_both_errors(t *testing.T) {
	_, rc := redistest.Mini(t)
	name := redistest.Unique(t)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	e := election.New(redistest.Lockkit(t, rc), name)
	_, err := e.Campaign(ended, "a")
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.Canceled)
	obs, err := e.Observe(ended)
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.Canceled)
	if obs != nil {
		t.Fatal("Observe with an ended ctx returned a channel")
	}
	redistest.AssertClean(t, rc, name)
}

// TestCampaign_while_the_candidate_campaigns_is_invalid: a candidate
// campaigns once at a time, also while its first Campaign still waits.
func TestCampaign_while_the_candidate_campaigns_is_invalid(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	leader := mustCampaign(ctx, t, election.New(c, name), "a")
	waiting := make(chan struct{}, 1)
	trace := lockkit.WithTrace(&lockkit.Trace{WaitStart: func(lockkit.WaitStartInfo) {
		select {
		case waiting <- struct{}{}:
		default:
		}
	}})
	e := election.New(c, name, trace)
	first, giveUp := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := e.Campaign(first, "b")
		done <- err
	}()
	redistest.Receive(t, waiting, redistest.Hang, "the first Campaign to wait")
	_, err := e.Campaign(ctx, "c")
	redistest.WantErr(t, err, lockkit.ErrInvalid)
	giveUp()
	redistest.WantErr(t, redistest.Receive(t, done, redistest.Hang, "the first Campaign to give up"), lockkit.ErrNotObtained, context.Canceled)
	_ = leader.Resign(ctx)
}

// TestClient_Close_ends_the_leadership_and_a_waiting_Campaign closes the
// Client of a waiting candidate and an observer, then the leader's: the
// Campaign returns ErrClosed, the observer's channel closes, and the
// leadership's Context ends with a cause matching ErrLost.
func TestClient_Close_ends_the_leadership_and_a_waiting_Campaign(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		name := redistest.Unique(t)
		ctx := redistest.Ctx(t, redistest.Hang)
		lc := lockkit.New(rc)
		l := mustCampaign(ctx, t, election.New(lc, name), "a")
		wc := lockkit.New(rc)
		waiting := make(chan struct{}, 1)
		trace := lockkit.WithTrace(&lockkit.Trace{WaitStart: func(lockkit.WaitStartInfo) {
			select {
			case waiting <- struct{}{}:
			default:
			}
		}})
		campaign := make(chan error, 1)
		go func() {
			_, err := election.New(wc, name, trace).Campaign(ctx, "w")
			campaign <- err
		}()
		obs := mustObserve(ctx, t, election.New(wc, name))
		redistest.Receive(t, waiting, redistest.Hang, "the candidate to wait")
		_ = wc.Close()
		redistest.WantErr(t, redistest.Receive(t, campaign, redistest.Hang, "the waiting Campaign to return"), lockkit.ErrClosed)
		for range obs {
		}
		_ = lc.Close()
		redistest.Receive(t, l.Context().Done(), redistest.Hang, "the leadership's context to end")
		if cause := context.Cause(l.Context()); !errors.Is(cause, lockkit.ErrLost) {
			t.Fatalf("cause after Close = %v, want ErrLost", cause)
		}
	})
}

// TestLeadership_with_a_fixed_lease_ends_by_itself: with WithLease the
// leadership ends when the lease runs out; its Context ends with ErrLost,
// the observers see nobody lead, and Resign reports ErrLost.
func TestLeadership_with_a_fixed_lease_ends_by_itself(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		name := redistest.Unique(t)
		c := redistest.Lockkit(t, rc)
		ctx := redistest.Ctx(t, redistest.Hang)
		obs := mustObserve(ctx, t, election.New(c, name))
		l := mustCampaign(ctx, t, election.New(c, name, lockkit.WithLease(time.Second)), "a")
		observeUntil(t, obs, "a to lead", func(x election.Leader) bool { return x == l.Leader() })
		redistest.Receive(t, l.Context().Done(), redistest.Hang, "the leadership's context to end")
		if cause := context.Cause(l.Context()); !errors.Is(cause, lockkit.ErrLost) {
			t.Fatalf("cause = %v, want ErrLost", cause)
		}
		observeUntil(t, obs, "nobody to lead", func(x election.Leader) bool { return x == election.Leader{} })
		redistest.WantErr(t, l.Resign(ctx), lockkit.ErrLost)
		redistest.AssertClean(t, rc, name)
	})
}

// TestObserve_a_slow_observer_holds_up_nobody: an observer that reads
// nothing while three leaders follow one another does not keep another
// observer of the same Client from seeing each, and then sees the latest.
func TestObserve_a_slow_observer_holds_up_nobody(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		c := redistest.Lockkit(t, rc)
		ctx := redistest.Ctx(t, redistest.Hang)
		slow := mustObserve(ctx, t, election.New(c, name))
		fast := mustObserve(ctx, t, election.New(c, name))
		nextLeader(t, fast, "the first report")
		var l *election.Leadership
		for _, v := range []string{"a", "b", "c"} {
			if l != nil {
				_ = l.Resign(ctx)
			}
			l = mustCampaign(ctx, t, election.New(c, name), v)
			observeUntil(t, fast, v+" to lead", func(x election.Leader) bool { return x == l.Leader() })
		}
		observeUntil(t, slow, "the latest leader", func(x election.Leader) bool { return x == l.Leader() })
		_ = l.Resign(ctx)
	})
}

// TestResign_after_a_lost_reply_is_settled_by_calling_it_again loses the
// reply of a Resign that took effect: until a second Resign settles it,
// the candidate cannot campaign; the second succeeds, a third finds
// nothing held, and the candidate leads again.
func TestResign_after_a_lost_reply_is_settled_by_calling_it_again(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		drop := &redistest.DropReply{}
		rc.AddHook(drop)
		ctx := redistest.Ctx(t, redistest.Hang)
		e := election.New(redistest.Lockkit(t, rc), name)
		l, err := e.Campaign(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		drop.Arm()
		if err := l.Resign(ctx); !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("Resign with its reply lost = %v", err)
		}
		_, err = e.Campaign(ctx, "b")
		redistest.WantErr(t, err, lockkit.ErrInvalid)
		if err := l.Resign(ctx); err != nil {
			t.Fatalf("second Resign = %v, want nil", err)
		}
		redistest.WantErr(t, l.Resign(ctx), lockkit.ErrNotHeld)
		if l, err = e.Campaign(ctx, "b"); err != nil {
			t.Fatalf("Campaign after the settled Resign: %v", err)
		}
		_ = l.Resign(ctx)
	})
}
