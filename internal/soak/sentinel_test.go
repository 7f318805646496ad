package soak_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// sentinelRounds is how many rounds the Sentinel soak goes through: a
// failover every third, after a round of killed pub/sub connections and
// one of killed normal connections, for failovers take seconds each.
const sentinelRounds = 10

// sentinelFailovers is how many of the rounds fail over: each promotes a
// replica of its own, and the killed masters stay down, for a server
// started again comes back as an empty master until the sentinels make it
// a replica, and the deployment takes seconds more to settle.
const sentinelFailovers = sentinelRounds / 3

// TestRepeated_failovers_leave_every_kind_as_after_the_first_round runs
// every kind of one server (all but RedLock) at once, each on a name of
// its own, on Clients of a Sentinel deployment of a master and a replica
// per failover, through sentinelRounds rounds: in each, every kind's
// holder holds and its waiters wait (a latch's Awaits wait) across a
// fault: the master's pub/sub connections killed, its normal connections
// killed, or the master killed and a replica promoted by the sentinels.
// The holds are then kept (killed connections) or kept or reported lost
// (a failover: replication is asynchronous), the waiters take the locks,
// and the process and the master come back to the state of the first
// round (see settleAll).
func TestRepeated_failovers_leave_every_kind_as_after_the_first_round(t *testing.T) {
	d := redistest.StartSentinel(t, sentinelFailovers, 3)
	admins := make(map[*redistest.Server]*redis.Client)
	for _, s := range append(d.Replicas(), d.Master()) {
		admins[s] = s.Client(t)
	}
	es := sentinelEnvs(t, d, admins[d.Master()])
	var obs *observer
	for _, e := range es {
		if observed(e.K) {
			obs = e.observe(t)
		}
	}
	failover := fault{name: "failover", hold: either, lossy: true, start: func(t *testing.T, _ *env) func() {
		master := d.KillMaster(t)
		for _, e := range es {
			e.Admins = []*redis.Client{admins[master]}
		}
		return nil
	}}
	var base *steady
	for i := range sentinelRounds {
		f := failover
		if i%3 < 2 {
			f = faults()[i%3]
		}
		ok := t.Run(fmt.Sprintf("%d %s", i, f.name), func(t *testing.T) {
			groupRound(t, es, f, i, obs)
			settleAll(t, es, base)
			if base == nil {
				base = es[0].measure()
			}
		})
		if !ok {
			return
		}
	}
	if obs != nil {
		obs.stop(t)
	}
	es[0].checkHeap(t, base)
}

// groupRound runs round i of es, envs that share their sides and
// servers, across fault f, injected once for all: each lock's holder
// holds and its waiters wait, each latch's Awaits wait, and once f is
// over, each hold must have had f's outcome, the waiters must take the
// locks and the latches' Awaits return once counted down.
func groupRound(t *testing.T, es []*env, f fault, i int, obs *observer) {
	t.Helper()
	locks := make([]lockWaits, len(es))
	latches := make([]latchWaits, len(es))
	for j, e := range es {
		if e.K.Owner == nil {
			latches[j] = e.beginLatch(t, i)
		} else {
			locks[j] = e.beginLock(t, obsOf(e, obs))
		}
	}
	if end := f.start(t, es[0]); end != nil {
		end()
	}
	for j, e := range es {
		if e.K.Owner == nil {
			e.countDown(t, latches[j])
			e.finishLatch(t, latches[j])
		} else {
			e.finishLock(t, locks[j], f)
		}
	}
}

// obsOf returns obs for the env of an election, else nil.
func obsOf(e *env, obs *observer) *observer {
	if observed(e.K) {
		return obs
	}
	return nil
}

// sentinelEnvs returns an env for every kind of one server, on the
// Sentinel deployment d: all share one prefix and two sides, whose
// Clients find the master through the sentinels, and each has a name of
// its own; admin is a client of the master.
func sentinelEnvs(t *testing.T, d *redistest.Sentinel, admin *redis.Client) []*env {
	t.Helper()
	prefix := redistest.Unique(t)
	side := func() faultkit.Side {
		s := faultkit.Counted()
		s.Nodes = append(s.Nodes, redistest.Lockkit(t, d.FailoverClient(t), s.Options(prefix, lease)...))
		return s
	}
	a, b := side(), side()
	var es []*env
	for _, k := range kinds() {
		if k.Servers > 1 {
			continue
		}
		es = append(es, &env{Env: &faultkit.Env{K: k, Servers: append(d.Replicas(), d.Master()), Admins: []*redis.Client{admin},
			A: a, B: b, Prefix: prefix, Name: strings.ReplaceAll(k.Name, " ", "-"), Lease: lease}})
	}
	return es
}
