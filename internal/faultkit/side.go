package faultkit

import (
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// Side is what one process of a test has, as far as the locks can tell:
// a lockkit Client of each of the test's servers, each on a go-redis
// client of its own. Kinds of one server use Nodes[0].
type Side struct {
	Nodes []*lockkit.Client
	// RCs are the go-redis clients under Nodes, for hooks.
	RCs []*redis.Client
	// Proxies are the proxies RCs dial the servers through, one per
	// server, when the side's network can be cut alone (Env.Proxied).
	Proxies []*redistest.Proxy
	// Waiting counts the side's Lock calls that wait: started waiting
	// (lockkit.Trace.WaitStart) and not done yet.
	Waiting *atomic.Int64
	// Renewals counts the round trips of the side's watchdogs that renewed
	// a lease (lockkit.Trace.Renewed).
	Renewals *atomic.Int64
	// Reconnects counts the side's pub/sub connections replaced
	// (lockkit.Trace.Reconnected).
	Reconnects *atomic.Int64
}

// Counted returns a side with its counters and no Client yet.
func Counted() Side {
	return Side{Waiting: new(atomic.Int64), Renewals: new(atomic.Int64), Reconnects: new(atomic.Int64)}
}

// Options are the options of the Clients of side s: the prefix of their
// keys (none for ""), the watchdog timeout lease and a trace that counts
// into s.
func (s Side) Options(prefix string, lease time.Duration) []lockkit.Option {
	tr := &lockkit.Trace{
		WaitStart: func(lockkit.WaitStartInfo) { s.Waiting.Add(1) },
		WaitDone:  func(lockkit.WaitDoneInfo) { s.Waiting.Add(-1) },
		Renewed: func(r lockkit.RenewInfo) {
			if r.Renewed > 0 {
				s.Renewals.Add(1)
			}
		},
		Reconnected: func(lockkit.ReconnectInfo) { s.Reconnects.Add(1) },
	}
	opts := []lockkit.Option{lockkit.WithWatchdogTimeout(lease), lockkit.WithTrace(tr)}
	if prefix != "" {
		opts = append(opts, lockkit.WithPrefix(prefix))
	}
	return opts
}
