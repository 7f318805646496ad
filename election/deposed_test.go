package election_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// waitingCandidate starts a Campaign for value on c and returns the
// channel its leadership arrives on once the candidate waits for the
// leadership (subscribed to be woken).
func waitingCandidate(ctx context.Context, t *testing.T, c *lockkit.Client, name, value string, opts ...lockkit.Option) <-chan *election.Leadership {
	t.Helper()
	won := campaignAsync(ctx, t, election.New(c, name, opts...), value)
	redistest.Eventually(t, redistest.Hang, value+" to wait", func() bool {
		return c.Notifier().Sleeping(core.SleepChannel(c, core.KeysFor(c, name).Channel)) == 1
	})
	return won
}

// endedLost fails the test unless l's Context has ended with a cause
// matching ErrLost.
func endedLost(t *testing.T, l *election.Leadership, what string) {
	t.Helper()
	if l.Context().Err() == nil {
		t.Fatalf("%s: the deposed leader's Context has not ended", what)
	}
	if cause := context.Cause(l.Context()); !errors.Is(cause, lockkit.ErrLost) {
		t.Fatalf("%s: the deposed leader's Context ended with %v, want ErrLost", what, cause)
	}
}

// succeeds receives the leadership that won delivers, the successor of a,
// and checks that a's Context had ended by then with a cause matching
// ErrLost (a leader learns that it lost the leadership before another can
// lead), that the successor's term is larger, and that obs reports it;
// it returns the successor.
func succeeds(t *testing.T, won <-chan *election.Leadership, a *election.Leadership, obs <-chan election.Leader, what string) *election.Leadership {
	t.Helper()
	b := redistest.Receive(t, won, redistest.Hang, what)
	if b == nil {
		t.FailNow()
	}
	endedLost(t, a, "when "+what)
	if b.Leader().Term <= a.Leader().Term {
		t.Fatalf("term %d after %d", b.Leader().Term, a.Leader().Term)
	}
	observeUntil(t, obs, what, func(l election.Leader) bool { return l == b.Leader() })
	return b
}

// deposedLeavesBe checks what the deposed leader a may still do once b
// leads: a's Resign returns ErrLost and leaves b leading, as Leader asked
// through c reports. b then resigns, and nothing is left in Redis.
func deposedLeavesBe(ctx context.Context, t *testing.T, s *redistest.Server, c *lockkit.Client, name string, a, b *election.Leadership) {
	t.Helper()
	redistest.WantErr(t, a.Resign(ctx), lockkit.ErrLost)
	if got, err := election.New(c, name).Leader(ctx); got != b.Leader() || err != nil {
		t.Fatalf("Leader = %+v, %v; want %+v", got, err, b.Leader())
	}
	resignsClean(ctx, t, b, s.Client(t), name)
}

// TestLeadership_force_unlocked_by_another_Client_ends_and_the_observers_see_the_next_leader
// has an operator's Client force-unlock a leader's election while a
// candidate of a third Client waits: the candidate leads at once with a
// larger term and an observer reports it; the deposed leader's Context
// ends by itself (its watchdog finds the hold gone) with a cause matching
// ErrLost, and its Resign returns ErrLost and leaves the new leader be.
func TestLeadership_force_unlocked_by_another_Client_ends_and_the_observers_see_the_next_leader(t *testing.T) {
	s := redistest.StartServer(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	op := redistest.Lockkit(t, s.Client(t))
	a, obs, won := contest(ctx, t, s, redistest.Lockkit(t, s.Client(t)), op, name, lockkit.WithWatchdogTimeout(3*time.Second), lockkit.WithWatchdogTimeout(5*time.Minute))

	if ok, err := election.New(op, name).ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
	}
	b := takesOver(t, won, a, obs, "b to lead")
	redistest.Receive(t, a.Context().Done(), redistest.Hang, "the deposed leader's Context to end")
	endedLost(t, a, "after the force unlock")
	deposedLeavesBe(ctx, t, s, op, name, a, b)
}

// TestLeadership_lost_in_a_stall_ends_before_a_candidate_of_another_Client_leads
// stalls the server past the lease of a leader while a candidate and an
// observer of two other Clients wait: the leader's Context ends with a
// cause matching ErrLost before the candidate leads, the candidate leads
// with a larger term, the observer reports it, and the deposed leader's
// Resign returns ErrLost and leaves the new leader be.
func TestLeadership_lost_in_a_stall_ends_before_a_candidate_of_another_Client_leads(t *testing.T) {
	s := redistest.StartServer(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	opt := lockkit.WithWatchdogTimeout(time.Second)
	oc := redistest.Lockkit(t, s.Client(t))
	a, obs, won := contest(ctx, t, s, redistest.Lockkit(t, s.Client(t)), oc, name, opt, opt)

	s.Stall(t, 3*time.Second)
	b := succeeds(t, won, a, obs, "b to lead")
	deposedLeavesBe(ctx, t, s, oc, name, a, b)
}

// TestLeadership_cut_off_ends_before_a_candidate_of_another_Client_leads
// cuts the leader's Client off the server, past its lease, while a
// candidate and an observer of two other Clients wait: the leader's
// Context ends with a cause matching ErrLost before the candidate leads,
// the candidate leads with a larger term once the lease ran out, the
// observer reports it, and once the cut heals the deposed leader's Resign
// returns ErrLost and leaves the new leader be.
func TestLeadership_cut_off_ends_before_a_candidate_of_another_Client_leads(t *testing.T) {
	s := redistest.StartServer(t)
	p := redistest.StartProxy(t, s.Addr())
	prc := p.Client(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	opt := lockkit.WithWatchdogTimeout(time.Second)
	oc := redistest.Lockkit(t, s.Client(t))
	a, obs, won := contest(ctx, t, s, redistest.Lockkit(t, prc), oc, name, opt, opt)

	p.Cut()
	b := succeeds(t, won, a, obs, "b to lead")
	p.Heal()
	deposedLeavesBe(ctx, t, s, oc, name, a, b)
}
