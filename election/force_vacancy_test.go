package election_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// vacancyWithin reads obs until it reports that nobody leads, and fails
// the test if that takes longer than d: d far shorter than the leader's
// lease shows that the observer was told, not that it read again when
// the lease would have run out.
func vacancyWithin(t *testing.T, obs <-chan election.Leader, d time.Duration) {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-obs:
			if !ok {
				t.Fatal("observer closed waiting for nobody to lead")
			}
			if l == (election.Leader{}) {
				return
			}
		case <-timer.C:
			t.Fatalf("the observer did not report that nobody leads within %v", d)
		}
	}
}

// TestElection_ForceUnlock_whose_reply_is_lost_tells_the_observers loses
// the reply of a force unlock that freed the leadership: ForceUnlock
// fails, but the observer, whose leader has a lease far longer than the
// test, sees at once that nobody leads, and the deposed leader learns
// that it lost the leadership.
func TestElection_ForceUnlock_whose_reply_is_lost_tells_the_observers(t *testing.T) {
	s, rc, drop := droppingServer(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	c := redistest.Lockkit(t, s.Client(t))
	a := mustCampaign(ctx, t, election.New(c, name, lockkit.WithWatchdogTimeout(5*time.Minute)), "a")
	obs := mustObserve(ctx, t, election.New(c, name))
	observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })
	forcer := election.New(redistest.Lockkit(t, rc), name)
	// Load the script first, on a name nobody holds.
	if _, err := election.New(redistest.Lockkit(t, rc), name+"-warm").ForceUnlock(ctx); err != nil {
		t.Fatal(err)
	}

	drop.Arm()
	_, err := forcer.ForceUnlock(ctx)
	redistest.WantErr(t, err, redistest.ErrReplyDropped)
	if drop.Armed() {
		t.Fatal("the force unlock's reply was not dropped")
	}
	vacancyWithin(t, obs, 5*time.Second)
	if got, err := forcer.Leader(ctx); got != (election.Leader{}) || err != nil {
		t.Fatalf("Leader after ForceUnlock = %+v, %v; want nobody", got, err)
	}
	redistest.WantErr(t, a.Resign(ctx), lockkit.ErrLost)
}

// TestElection_ForceUnlock_whose_ctx_ends_in_a_stall_tells_the_observers
// sends a force unlock to a stalled server with a deadline that passes
// before the stall ends: ForceUnlock fails with the ctx's error, the
// server frees the leadership once it answers again, and the observer,
// whose leader has a lease far longer than the test, sees at once that
// nobody leads.
func TestElection_ForceUnlock_whose_ctx_ends_in_a_stall_tells_the_observers(t *testing.T) {
	srv, c, name := redistest.OnServer(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	a := mustCampaign(ctx, t, election.New(c, name, lockkit.WithWatchdogTimeout(5*time.Minute)), "a")
	obs := mustObserve(ctx, t, election.New(c, name))
	observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })
	forcer := election.New(c, name)
	// Load the script first, on a name nobody holds.
	if _, err := election.New(c, name+"-warm").ForceUnlock(ctx); err != nil {
		t.Fatal(err)
	}

	const stall = 1500 * time.Millisecond
	srv.Stall(t, stall)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err := forcer.ForceUnlock(short)
	redistest.WantErr(t, err, context.DeadlineExceeded)
	vacancyWithin(t, obs, stall+5*time.Second)
	if got, err := forcer.Leader(ctx); got != (election.Leader{}) || err != nil {
		t.Fatalf("Leader after ForceUnlock = %+v, %v; want nobody", got, err)
	}
	redistest.WantErr(t, a.Resign(ctx), lockkit.ErrLost)
}
