package lockkit_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestEvery_call_returns_at_its_deadline_not_at_the_read_timeout cuts the
// network under go-redis clients that wait a minute for a reply (and
// retry), and makes every call of every kind at once, each with a ctx of
// 100 ms: each returns about then (within the clean-up grace of a waiter
// leaving its queue, and a loaded machine's slack), never at the
// client's read timeout, the acquires with an error matching
// ErrNotObtained and context.DeadlineExceeded, the others with one
// matching context.DeadlineExceeded (but for the calls that a cohort
// answers from memory). Once the network is back and the
// holds of the set-up are released, what the requests did when they
// arrived late (acquires, releases, queue entries) is undone: nothing is
// left in Redis.
func TestEvery_call_returns_at_its_deadline_not_at_the_read_timeout(t *testing.T) {
	srvs := redistest.StartMasters(t, 3)
	var (
		lcs     []*lockkit.Client
		proxies []*redistest.Proxy
	)
	for _, srv := range srvs {
		p := redistest.StartProxy(t, srv.Addr())
		proxies = append(proxies, p)
		lcs = append(lcs, redistest.Lockkit(t, redistest.Patient(t, p.Addr())))
	}
	s := everyCall(t, lcs[0], lcs)
	for _, p := range proxies {
		p.Cut()
	}
	const d = 100 * time.Millisecond
	// Far below the clients' minute, above what the calls may take.
	const bound = d + core.CleanupGrace + time.Second
	got := redistest.CallAtOnce(len(s.calls), d, func(ctx context.Context, i int) error { return s.calls[i].call(ctx) })
	for i, c := range s.calls {
		o := redistest.Receive(t, got[i], redistest.Hang, c.name+" to return")
		if o.Took > bound {
			t.Errorf("%s with a ctx of %v against a cut network took %v, want at most %v", c.name, d, o.Took, bound)
		}
		if c.local && o.Err == nil {
			continue // answered from memory
		}
		if c.class == acquire {
			wantErrs(t, c.name, o.Err, lockkit.ErrNotObtained, context.DeadlineExceeded)
		} else {
			wantErrs(t, c.name, o.Err, context.DeadlineExceeded)
		}
	}
	for _, p := range proxies {
		p.Heal()
	}
	s.free(t)
	for _, srv := range srvs {
		s.wantClean(t, srv.Client(t))
	}
}
