package election_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestObserve_reads_again_after_a_failed_read loses the reply of the read
// an observer makes on hearing of a new leader, whose lease is far longer
// than the test, while its pub/sub connection stays up: nothing but the
// observer's retry of the failed read can report that leader in time, and
// the channel stays open.
func TestObserve_reads_again_after_a_failed_read(t *testing.T) {
	s, rc, drop := droppingServer(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	obs := mustObserve(ctx, t, election.New(redistest.Lockkit(t, rc), name))
	if l := nextLeader(t, obs, "the first report"); l != (election.Leader{}) {
		t.Fatalf("first report = %+v, want nobody", l)
	}
	drop.Arm()
	a := mustCampaign(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name, lockkit.WithWatchdogTimeout(5*time.Minute)), "a")
	observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })
	if drop.Armed() {
		t.Error("no read of the observer lost its reply")
	}
	if err := a.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
}
