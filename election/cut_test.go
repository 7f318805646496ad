package election_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

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
	srv := redistest.StartServer(t)
	p := redistest.StartProxy(t, srv.Addr())
	rc := redis.NewClient(&redis.Options{Addr: p.Addr()})
	t.Cleanup(func() { _ = rc.Close() })
	broken := make(chan struct{}, 1)
	c := redistest.Lockkit(t, rc, lockkit.WithTrace(&lockkit.Trace{Reconnected: func(lockkit.ReconnectInfo) {
		select {
		case broken <- struct{}{}:
		default:
		}
	}}))
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
