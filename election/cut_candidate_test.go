package election_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestCampaign_of_a_candidate_cut_off_while_the_leader_resigns_leads_once_its_connection_is_back
// cuts a waiting candidate's Client, and an observer of it, off the
// server while the leader, whose lease is far longer than the test,
// resigns: the resignation's messages never reach them. Once the
// candidate's connection is found broken and the cut heals, the
// candidate leads with a larger term, and the observer, which never saw
// the vacancy, reports it.
func TestCampaign_of_a_candidate_cut_off_while_the_leader_resigns_leads_once_its_connection_is_back(t *testing.T) {
	s := redistest.StartServer(t)
	p := redistest.StartProxy(t, s.Addr())
	prc := redis.NewClient(&redis.Options{Addr: p.Addr()})
	t.Cleanup(func() { _ = prc.Close() })
	broken := make(chan struct{}, 1)
	bc := redistest.Lockkit(t, prc, lockkit.WithTrace(&lockkit.Trace{Reconnected: func(lockkit.ReconnectInfo) {
		select {
		case broken <- struct{}{}:
		default:
		}
	}}))
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	a := mustCampaign(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name, long), "a")
	obs := mustObserve(ctx, t, election.New(bc, name))
	observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })
	won := waitingCandidate(ctx, t, bc, name, "b", long)

	p.Cut()
	if err := a.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, broken, redistest.Hang, "the candidate's connection to be found broken")
	p.Heal()
	takesOver(t, won, a, obs, "b to lead")
}
