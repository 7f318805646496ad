package election_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestObserve_reports_the_leader_elected_while_it_was_cut_off cuts an
// observer's Client off the server while a leader with a long lease is
// elected: once its connection is found broken and the cut heals, the
// observer reads again and reports that leader, whose proclamation it
// never received.
func TestObserve_reports_the_leader_elected_while_it_was_cut_off(t *testing.T) {
	srv, p, c, broken := cutOffable(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	obs, err := election.New(c, name).Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nextLeader(t, obs, "the first report")
	p.Cut()
	l, err := election.New(redistest.Lockkit(t, srv.Client(t)), name, lockkit.WithWatchdogTimeout(5*time.Minute)).Campaign(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, broken, redistest.Hang, "the observer's connection to be found broken")
	p.Heal()
	observeUntil(t, obs, "a to lead", func(x election.Leader) bool { return x == l.Leader() })
	_ = l.Resign(ctx)
}

// TestCampaign_of_a_candidate_cut_off_while_the_leader_resigns_leads_once_its_connection_is_back
// cuts a waiting candidate's Client, and an observer of it, off the
// server while the leader, whose lease is far longer than the test,
// resigns: the resignation's messages never reach them. Once the
// candidate's connection is found broken and the cut heals, the
// candidate leads with a larger term, and the observer, which never saw
// the vacancy, reports it.
func TestCampaign_of_a_candidate_cut_off_while_the_leader_resigns_leads_once_its_connection_is_back(t *testing.T) {
	s, p, bc, broken := cutOffable(t)
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

// cutOffable starts a server and a Client of it through a proxy, to be cut
// off: it returns the server, the proxy, the Client and a channel that
// gets a value when the Client's pub/sub connection is found broken.
func cutOffable(t *testing.T) (*redistest.Server, *redistest.Proxy, *lockkit.Client, <-chan struct{}) {
	s := redistest.StartServer(t)
	p := redistest.StartProxy(t, s.Addr())
	rc := p.Client(t)
	broken := make(chan struct{}, 1)
	c := redistest.Lockkit(t, rc, lockkit.WithTrace(&lockkit.Trace{Reconnected: func(lockkit.ReconnectInfo) {
		select {
		case broken <- struct{}{}:
		default:
		}
	}}))
	return s, p, c, broken
}
