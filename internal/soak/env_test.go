package soak_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// lease is the watchdog timeout of every hold, which renews it every
// lease/3.
const lease = 500 * time.Millisecond

// callBound bounds a call or a wait expected to end: reaching it means a
// hang.
const callBound = 10 * time.Second

// side is what one process of a soak has: a lockkit Client of each of the
// soak's servers, each on a go-redis client of its own that dials the
// server through a proxy of the side's own, so that the side's network
// can be cut alone.
type side struct {
	nodes   []*lockkit.Client
	proxies []*redistest.Proxy
	// waiting counts the side's Lock calls that wait: started waiting
	// (lockkit.Trace.WaitStart) and not done yet.
	waiting *atomic.Int64
	// renewals counts the round trips of the side's watchdogs that renewed
	// a lease (lockkit.Trace.Renewed).
	renewals *atomic.Int64
	// reconnects counts the side's pub/sub connections replaced
	// (lockkit.Trace.Reconnected).
	reconnects *atomic.Int64
}

// env is the set-up of one kind's soak: its servers, a go-redis client of
// each for the administration, two sides that lock, the prefix of their
// keys and a lock name.
type env struct {
	k       kind
	servers []*redistest.Server
	admins  []*redis.Client
	a, b    side
	prefix  string
	name    string
	// tokens are the fencing tokens of the last hold of e's lock, part by
	// part (see fenced).
	tokens []int64
}

// newEnv starts the servers of kind k and the rest of its env.
func newEnv(t *testing.T, k kind) *env {
	t.Helper()
	e := &env{k: k, servers: redistest.StartMasters(t, max(k.servers, 1)), prefix: redistest.Unique(t), name: "soak"}
	for _, s := range e.servers {
		e.admins = append(e.admins, s.Client(t))
	}
	e.a, e.b = e.newSide(t), e.newSide(t)
	return e
}

// newSide returns a side of e: fresh Clients of its servers, through
// proxies of their own.
func (e *env) newSide(t *testing.T) side {
	t.Helper()
	s := newSideCounts()
	for _, srv := range e.servers {
		p := redistest.StartProxy(t, srv.Addr())
		s.proxies = append(s.proxies, p)
		s.nodes = append(s.nodes, redistest.Lockkit(t, p.Client(t), s.options(e.prefix)...))
	}
	return s
}

// newSideCounts returns a side with its counters and no Client yet.
func newSideCounts() side {
	return side{waiting: new(atomic.Int64), renewals: new(atomic.Int64), reconnects: new(atomic.Int64)}
}

// options are the options of the Clients of side s: the soak's prefix,
// its lease and a trace that counts into s.
func (s side) options(prefix string) []lockkit.Option {
	tr := &lockkit.Trace{
		WaitStart: func(lockkit.WaitStartInfo) { s.waiting.Add(1) },
		WaitDone:  func(lockkit.WaitDoneInfo) { s.waiting.Add(-1) },
		Renewed: func(r lockkit.RenewInfo) {
			if r.Renewed > 0 {
				s.renewals.Add(1)
			}
		},
		Reconnected: func(lockkit.ReconnectInfo) { s.reconnects.Add(1) },
	}
	return []lockkit.Option{lockkit.WithPrefix(prefix), lockkit.WithWatchdogTimeout(lease), lockkit.WithTrace(tr)}
}

// clients returns the Clients of both sides of e.
func (e *env) clients() []*lockkit.Client {
	return append(append([]*lockkit.Client(nil), e.a.nodes...), e.b.nodes...)
}

// admin runs a command on every server of e, failing the test on an error.
func (e *env) admin(t *testing.T, args ...any) {
	t.Helper()
	for _, c := range e.admins {
		if err := c.Do(redistest.Ctx(t, callBound), args...).Err(); err != nil {
			t.Fatalf("%v on %s: %v", args, c.Options().Addr, err)
		}
	}
}
