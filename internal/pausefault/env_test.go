package pausefault_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// callBound bounds a call expected to succeed: reaching it means a hang.
const callBound = faultkit.CallBound

// slack is what a bound of the tests allows beyond the time the code
// itself takes, for a busy machine running the race detector.
const slack = 500 * time.Millisecond

// env is the set-up of one kind's test: the servers the kind spans, a
// go-redis client of each for checks, two sides that lock in the test's
// process, and a fresh lock name; the child's Clients have its watchdog
// timeout too.
type env struct{ *faultkit.Env }

// forEachKind runs test for every kind as a subtest, on three
// redis-servers started for the whole test (each kind's lock has a name
// of its own), with the watchdog timeout lease.
func forEachKind(t *testing.T, lease time.Duration, test func(t *testing.T, e *env)) {
	servers := redistest.StartMasters(t, 3)
	for _, k := range kinds() {
		t.Run(k.Name, func(t *testing.T) {
			test(t, &env{faultkit.NewEnv(t, k, lease, servers[:k.Servers])})
		})
	}
}

// wait starts the Lock of the i-th owner of e's lock on side s and returns
// once it waits.
func (e *env) wait(t *testing.T, s faultkit.Side, i int) faultkit.Waiter {
	t.Helper()
	return e.Wait(t, redistest.Ctx(t, redistest.Hang), s, i)
}

// lockAsync starts o's Lock, bounded by redistest.Hang, and returns the
// channel its result arrives on.
func lockAsync(t *testing.T, o faultkit.Owner) <-chan error {
	return redistest.LockAsync(redistest.Ctx(t, redistest.Hang), o)
}

// taken waits up to within for w's Lock to return and fails the test
// unless it returned nil.
func taken(t *testing.T, w faultkit.Waiter, within time.Duration, what string) {
	t.Helper()
	if err := redistest.Receive(t, w.Done, within, what); err != nil {
		t.Fatalf("%s: Lock = %v", what, err)
	}
}

// wantHeld checks that e's lock is held: a fresh owner of it on side b
// cannot take it.
func (e *env) wantHeld(t *testing.T, what string) {
	t.Helper()
	o := e.Owner(e.B, 9)
	ok, err := o.TryLock(redistest.Ctx(t, callBound))
	if ok || err != nil {
		t.Errorf("%s: TryLock of another owner = %v, %v; want the lock held", what, ok, err)
		if ok {
			faultkit.MustUnlock(t, o)
		}
	}
}

// childFirstInLine has an owner of side A take e's lock and returns it,
// with a child process whose owner waits for the lock first in line,
// listening for a release (see listening).
func (e *env) childFirstInLine(t *testing.T) (faultkit.Owner, *redistest.Child) {
	t.Helper()
	holder := e.Owner(e.A, 0)
	faultkit.MustLock(t, holder)
	c := e.StartOwner(t, 3)
	c.Send(t, "lock")
	c.WaitLine(t, "waiting", callBound)
	e.listening(t, 1)
	return holder, c
}

// resumedTakesItsTurn resumes the stopped child process c, whose owner
// waits for e's lock, and checks that its Lock takes the lock and its
// Unlock frees it, that the child ends, and that nothing is left of the
// lock.
func (e *env) resumedTakesItsTurn(t *testing.T, c *redistest.Child) {
	t.Helper()
	c.Continue(t)
	c.WaitLine(t, "locked", callBound)
	faultkit.ChildUnlock(t, c, "nil")
	faultkit.EndChild(t, c)
	e.Clean(t, e.Name)
}

// listening waits until n channels of e's lock are subscribed on its
// servers (PUBSUB CHANNELS): a process that waits for a release listens on
// a channel of its own once it is registered as waiting. It does nothing
// for the kinds whose waiters poll.
func (e *env) listening(t *testing.T, n int) {
	t.Helper()
	if e.K.Polls {
		return
	}
	redistest.Eventually(t, callBound, strconv.Itoa(n)+" channels of the lock subscribed", func() bool {
		got := 0
		for _, c := range e.Admins {
			for _, name := range e.K.Names(e.Name) {
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

// ctx returns a context for a call of the test that must not hang.
func ctx(t *testing.T) context.Context { return redistest.Ctx(t, callBound) }
