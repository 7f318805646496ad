package adminfault_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// lease is the watchdog timeout of every hold, which renews it every
// lease/3, but for the tests that give their own (see forEachKindLease).
const lease = time.Second

// callBound bounds a call expected to succeed: reaching it means a hang.
const callBound = 10 * time.Second

// side is what one process of a test has: a lockkit Client of each of the
// test's servers, each on a go-redis client of its own. Kinds of one
// server use nodes[0].
type side struct {
	nodes []*lockkit.Client
	// rcs are the go-redis clients under nodes, for hooks.
	rcs []*redis.Client
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

// env is the set-up of one kind's test: its servers, a go-redis client of
// each for the administration, two sides that lock (two processes, as far
// as the locks can tell), and a fresh lock name.
type env struct {
	k       kind
	servers []*redistest.Server
	admins  []*redis.Client
	a, b    side
	name    string
	// lease is the watchdog timeout of the sides' Clients.
	lease time.Duration
}

// forEachKind runs test for every kind as a subtest, on servers started for
// it, with the watchdog timeout lease.
func forEachKind(t *testing.T, test func(t *testing.T, e *env)) { forEachKindLease(t, lease, test) }

// forEachKindLease is forEachKind with the watchdog timeout d.
func forEachKindLease(t *testing.T, d time.Duration, test func(t *testing.T, e *env)) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) { test(t, newEnv(t, k, d)) })
	}
}

// newEnv starts the servers of kind k and the rest of its env, whose
// Clients have the watchdog timeout d.
func newEnv(t *testing.T, k kind, d time.Duration) *env {
	t.Helper()
	return newEnvOn(t, k, d, redistest.StartMasters(t, max(k.servers, 1)))
}

// newEnvOn is newEnv on servers, started already, as many as k spans.
func newEnvOn(t *testing.T, k kind, d time.Duration, servers []*redistest.Server) *env {
	t.Helper()
	e := &env{k: k, servers: servers, name: redistest.Unique(t), lease: d}
	for _, s := range e.servers {
		e.admins = append(e.admins, s.Client(t))
	}
	e.a, e.b = e.newSide(t), e.newSide(t)
	return e
}

// newSide returns a side of e: fresh Clients of its servers, with e's
// watchdog timeout.
func (e *env) newSide(t *testing.T) side {
	t.Helper()
	s := side{waiting: new(atomic.Int64), renewals: new(atomic.Int64), reconnects: new(atomic.Int64)}
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
	for _, srv := range e.servers {
		rc := srv.Client(t)
		s.rcs = append(s.rcs, rc)
		s.nodes = append(s.nodes, redistest.Lockkit(t, rc, lockkit.WithWatchdogTimeout(e.lease), lockkit.WithTrace(tr)))
	}
	return s
}

// renewed waits until the watchdogs of side s have made n more round
// trips that renewed a lease.
func renewed(t *testing.T, s side, n int64) {
	t.Helper()
	target := s.renewals.Load() + n
	redistest.Eventually(t, callBound, "watchdog round trips", func() bool { return s.renewals.Load() >= target })
}

// clean checks that nothing is left of lock n on e's servers (see
// redistest.AssertClean) but its fencing counter and released tokens.
func (e *env) clean(t *testing.T, n string) {
	t.Helper()
	for _, c := range e.admins {
		for _, name := range e.k.names(n) {
			redistest.AssertCleanWithin(t, c, name, time.Second)
		}
	}
}

// owner returns the i-th owner of e's lock on side s.
func (e *env) owner(s side, i int) owner { return e.k.owner(s, e.name, i) }

// admin runs a command on every server of e, failing the test on an error.
func (e *env) admin(t *testing.T, args ...any) {
	t.Helper()
	for _, c := range e.admins {
		if err := c.Do(redistest.Ctx(t, callBound), args...).Err(); err != nil {
			t.Fatalf("%v on %s: %v", args, c.Options().Addr, err)
		}
	}
}

// mustLock locks o within callBound, failing the test otherwise.
func mustLock(t *testing.T, o owner) {
	t.Helper()
	if err := o.Lock(redistest.Ctx(t, callBound)); err != nil {
		t.Fatalf("Lock: %v", err)
	}
}

// mustUnlock unlocks o within callBound, failing the test otherwise.
func mustUnlock(t *testing.T, o owner) {
	t.Helper()
	if err := o.Unlock(redistest.Ctx(t, callBound)); err != nil {
		t.Fatalf("Unlock: %v", err)
	}
}

// wantFree checks that the lock of o is free: a fresh owner of it on side
// s takes it at once, and gives it back.
func (e *env) wantFree(t *testing.T, s side, what string) {
	t.Helper()
	o := e.owner(s, 9)
	ok, err := o.TryLock(redistest.Ctx(t, callBound))
	if !ok || err != nil {
		t.Fatalf("%s: TryLock of another owner = %v, %v; want the lock free", what, ok, err)
	}
	mustUnlock(t, o)
}

// waiter is an owner waiting in Lock, started by wait.
type waiter struct {
	owner
	done <-chan error
}

// wait starts the Lock of the i-th owner of e's lock on side s, with ctx,
// and returns once the side has one more Lock waiting. In cohort mode a
// Lock on the holder's side waits in memory, which no trace reports: wait
// returns at once then.
func (e *env) wait(t *testing.T, ctx context.Context, s side, i int) waiter {
	t.Helper()
	before := s.waiting.Load()
	o := e.owner(s, i)
	w := waiter{owner: o, done: redistest.LockAsync(ctx, o)}
	if e.k.cohort && s.waiting == e.a.waiting {
		return w
	}
	redistest.Eventually(t, callBound, "the Lock to wait", func() bool { return s.waiting.Load() > before })
	return w
}

// serve waits for the waiters to take the lock, each within within of the
// one before, in whatever order: each Lock must return nil, and is
// unlocked once no other waiter's Lock was seen to return meanwhile.
func serve(t *testing.T, within time.Duration, ws ...waiter) { serveAfter(t, within, nil, ws...) }

// serveAfter is serve that also checks that each waiter's hold has
// tokens larger than those of old, part by part (nil: no check).
func serveAfter(t *testing.T, within time.Duration, old []int64, ws ...waiter) {
	t.Helper()
	type result struct {
		i   int
		err error
	}
	got := make(chan result, len(ws))
	for i, w := range ws {
		go func() { got <- result{i, <-w.done} }()
	}
	for range ws {
		r := redistest.Receive(t, got, within, fmt.Sprintf("a waiter of %d to take the lock", len(ws)))
		if r.err != nil {
			t.Fatalf("waiter %d: Lock = %v", r.i, r.err)
		}
		if len(got) > 0 {
			t.Errorf("waiter %d's Lock returned while waiter %d held the lock", (<-got).i, r.i)
		}
		for p, tok := range ws[r.i].tokens() {
			if old != nil && tok <= old[p] {
				t.Errorf("waiter %d's token %d of part %d is not larger than the lost hold's %d", r.i, tok, p, old[p])
			}
		}
		mustUnlock(t, ws[r.i].owner)
	}
}
