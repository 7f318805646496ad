package pausefault_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// callBound bounds a call expected to succeed: reaching it means a hang.
const callBound = 10 * time.Second

// slack is what a bound of the tests allows beyond the time the code
// itself takes, for a busy machine running the race detector.
const slack = 500 * time.Millisecond

// side is one process's Clients, as far as the locks can tell: a Client
// of each server, each on a go-redis client of its own.
type side struct {
	nodes []*lockkit.Client
	// waiting counts the side's Lock calls that started waiting
	// (lockkit.Trace.WaitStart) and are not done yet.
	waiting *atomic.Int64
}

// env is the set-up of one kind's test: the servers the kind spans, a
// go-redis client of each for checks, two sides that lock in the test's
// process, and a fresh lock name.
type env struct {
	k       kind
	servers []*redistest.Server
	admins  []*redis.Client
	a, b    side
	name    string
	// lease is the watchdog timeout of every Client, the child's too.
	lease time.Duration
}

// forEachKind runs test for every kind as a subtest, on three
// redis-servers started for the whole test (each kind's lock has a name
// of its own), with the watchdog timeout lease.
func forEachKind(t *testing.T, lease time.Duration, test func(t *testing.T, e *env)) {
	servers := redistest.StartMasters(t, 3)
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			e := &env{k: k, servers: servers[:k.servers], name: redistest.Unique(t), lease: lease}
			for _, s := range e.servers {
				e.admins = append(e.admins, s.Client(t))
			}
			e.a, e.b = e.newSide(t), e.newSide(t)
			test(t, e)
		})
	}
}

// newSide returns a side of e: fresh Clients of its servers.
func (e *env) newSide(t *testing.T) side {
	t.Helper()
	s := side{waiting: new(atomic.Int64)}
	tr := &lockkit.Trace{
		WaitStart: func(lockkit.WaitStartInfo) { s.waiting.Add(1) },
		WaitDone:  func(lockkit.WaitDoneInfo) { s.waiting.Add(-1) },
	}
	for _, srv := range e.servers {
		s.nodes = append(s.nodes, redistest.Lockkit(t, srv.Client(t), lockkit.WithWatchdogTimeout(e.lease), lockkit.WithTrace(tr)))
	}
	return s
}

// owner returns the i-th owner of e's lock on side s.
func (e *env) owner(s side, i int) owner { return e.k.owner(s.nodes, e.name, i) }

// startOwner starts an ownerChild with the i-th owner of e's lock.
func (e *env) startOwner(t *testing.T, i int) *redistest.Child {
	t.Helper()
	addrs := make([]string, len(e.servers))
	for j, s := range e.servers {
		addrs[j] = s.Addr()
	}
	return redistest.StartChild(t, "owner", e.k.name, e.lease.String(), e.name, strings.Join(addrs, ","), strconv.Itoa(i))
}

// childLock makes the ownerChild c take the lock, which must be free, and
// returns its hold's tokens.
func childLock(t *testing.T, c *redistest.Child) []int64 {
	t.Helper()
	c.Send(t, "lock")
	var tokens []int64
	for _, f := range strings.Fields(strings.TrimPrefix(c.WaitLine(t, "locked", callBound), "locked")) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("child's token %q: %v", f, err)
		}
		tokens = append(tokens, n)
	}
	return tokens
}

// childUnlock makes the ownerChild c unlock and checks that its Unlock
// returned want ("nil", "ErrLost").
func childUnlock(t *testing.T, c *redistest.Child, want string) {
	t.Helper()
	c.Send(t, "unlock")
	if got := c.WaitLine(t, "unlock ", callBound); got != "unlock "+want {
		t.Errorf("the stopped process's Unlock: got %q, want %q", got, "unlock "+want)
	}
}

// childRenewals returns how many renewals of a lease the ownerChild c's
// watchdog has made.
func childRenewals(t *testing.T, c *redistest.Child) int64 {
	t.Helper()
	c.Send(t, "renewals")
	return c.WaitInt(t, "renewals ", callBound)
}

// endChild closes the stdin of the ownerChild c and waits for it to exit
// cleanly.
func endChild(t *testing.T, c *redistest.Child) {
	t.Helper()
	c.CloseStdin(t)
	c.Wait(t, callBound)
}

// waiter is an owner waiting in Lock, started by wait.
type waiter struct {
	owner
	done <-chan error
}

// wait starts the Lock of the i-th owner of e's lock on side s and returns
// once it waits.
func (e *env) wait(t *testing.T, s side, i int) waiter {
	t.Helper()
	before := s.waiting.Load()
	o := e.owner(s, i)
	w := waiter{owner: o, done: lockAsync(t, o)}
	redistest.Eventually(t, callBound, "the Lock to wait", func() bool { return s.waiting.Load() > before })
	return w
}

// lockAsync starts o's Lock, bounded by redistest.Hang, and returns the
// channel its result arrives on.
func lockAsync(t *testing.T, o owner) <-chan error {
	return redistest.LockAsync(redistest.Ctx(t, redistest.Hang), o)
}

// taken waits up to within for w's Lock to return and fails the test
// unless it returned nil.
func taken(t *testing.T, w waiter, within time.Duration, what string) {
	t.Helper()
	if err := redistest.Receive(t, w.done, within, what); err != nil {
		t.Fatalf("%s: Lock = %v", what, err)
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

// wantHeld checks that e's lock is held: a fresh owner of it on side b
// cannot take it.
func (e *env) wantHeld(t *testing.T, what string) {
	t.Helper()
	o := e.owner(e.b, 9)
	ok, err := o.TryLock(redistest.Ctx(t, callBound))
	if ok || err != nil {
		t.Errorf("%s: TryLock of another owner = %v, %v; want the lock held", what, ok, err)
		if ok {
			mustUnlock(t, o)
		}
	}
}

// listening waits until n channels of e's lock are subscribed on its
// servers (PUBSUB CHANNELS): a process that waits for a release listens on
// a channel of its own once it is registered as waiting. It does nothing
// for the kinds whose waiters poll.
func (e *env) listening(t *testing.T, n int) {
	t.Helper()
	if e.k.polls {
		return
	}
	redistest.Eventually(t, callBound, strconv.Itoa(n)+" channels of the lock subscribed", func() bool {
		got := 0
		for _, c := range e.admins {
			for _, name := range e.k.names(e.name) {
				chans, err := c.PubSubChannels(ctx(t), "*{"+name+"}*").Result()
				if err != nil {
					t.Fatalf("PUBSUB CHANNELS: %v", err)
				}
				got += len(chans)
			}
		}
		return got >= n
	})
}

// clean checks that nothing is left of e's lock on its servers (see
// redistest.AssertClean) but its fencing counter and released tokens.
func (e *env) clean(t *testing.T) {
	t.Helper()
	for _, c := range e.admins {
		for _, name := range e.k.names(e.name) {
			redistest.AssertCleanWithin(t, c, name, time.Second)
		}
	}
}

// ctx returns a context for a call of the test that must not hang.
func ctx(t *testing.T) context.Context { return redistest.Ctx(t, callBound) }
