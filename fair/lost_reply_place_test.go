package fair_test

import (
	"net"
	"os"
	"testing"
	"time"

	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// readTimeout is the error go-redis gives when a reply does not come in
// time: a network error, which a waiting Lock waits out.
var readTimeout error = &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}

// lostReplyQueue starts a redis-server and a holder of a lock on it, and
// queues w, then x and y behind it (waiter timeout a minute each: no
// heartbeat falls within a test), recording their turns in tr. w is on a
// Client of its own, whose acquires' replies hook loses, once armed, with
// a read timeout; w is asleep, its attempts so far answered, when it
// returns.
func lostReplyQueue(t *testing.T) (e *lockEnv, holder *fair.Mutex, hook *redistest.DropReply, tr *turns) {
	t.Helper()
	hook = &redistest.DropReply{Match: isAcquire, Err: readTimeout}
	e, lc, counter := twoClients(t, hook)
	holder = e.held()
	tr = new(turns)
	wt := fair.WithWaiterTimeout(time.Minute)
	tr.join(e.on(lc), nil, []string{"w"}, wt)
	redistest.Eventually(t, 10*time.Second, "w asleep", func() bool { return counter.Scripts() == 2 })
	tr.join(e, []string{"w"}, []string{"x", "y"}, wt)
	return e, holder, hook, tr
}

// TestLock_waiter_whose_taking_attempt_lost_its_reply_keeps_its_place: the
// release wakes w, first in line, whose acquire takes the lock, but the
// reply is lost to a network error. w's Lock waits the error out; the
// hold nobody knows of is undone first, and w, which still waits, must
// still be first in line: it takes the lock before x and y, which joined
// after it.
func TestLock_waiter_whose_taking_attempt_lost_its_reply_keeps_its_place(t *testing.T) {
	e, holder, hook, tr := lostReplyQueue(t)
	hook.Arm()
	redistest.MustUnlock(t, holder)
	tr.want(t, time.Minute, "w", "x", "y")
	if hook.Armed() {
		t.Fatal("no acquire's reply was lost")
	}
	e.wantQueue()
}

// TestLock_waiter_whose_refused_attempt_lost_its_reply_keeps_its_place: a
// wake-up makes w attempt while the lock is held; the refused attempt's
// reply is lost to a network error, which w's Lock waits out. The attempt
// renewed w's entry and nothing is undone: w stays first in line, and the
// waiters take the lock in the order they joined.
func TestLock_waiter_whose_refused_attempt_lost_its_reply_keeps_its_place(t *testing.T) {
	e, holder, hook, tr := lostReplyQueue(t)
	hook.Arm()
	if err := e.c.Publish(redistest.Ctx(t, 5*time.Second), channelOf(e.name, "w"), "1").Err(); err != nil {
		t.Fatalf("PUBLISH: %v", err)
	}
	redistest.Eventually(t, 10*time.Second, "w's attempt to lose its reply", func() bool { return !hook.Armed() })
	e.wantQueue("w", "x", "y")
	redistest.MustUnlock(t, holder)
	tr.want(t, time.Minute, "w", "x", "y")
}
