package fair_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestClose_with_a_woken_waiters_acquire_on_its_way_serves_the_next_waiter:
// the release of a holder on one Client wakes w, first in line on a second
// Client, whose acquire (which takes the lock from the head of the queue)
// the server has not answered when w's Client closes. w's Lock returns
// ErrClosed and gives back the hold it took without putting w back in
// line: x, queued behind w on a third Client, gets the lock at once, not a
// waiter timeout (a minute here) later, and nothing of the lock is left.
func TestClose_with_a_woken_waiters_acquire_on_its_way_serves_the_next_waiter(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	opts := []lockkit.Option{fair.WithWaiterTimeout(time.Minute)}
	holder := e.held()

	rcW := srv.Client(t)
	silent := &redistest.Silence{Max: 2 * redistest.Hang, Match: isAcquire}
	t.Cleanup(silent.Off)
	replies := new(scriptReplies)
	rcW.AddHook(replies)
	rcW.AddHook(silent)
	lcW := redistest.Lockkit(t, rcW)
	w := e.on(lcW).mutex(append(opts, lockkit.WithOwner("w"))...)
	gotW := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), w)
	// Asleep: its attempts before and after it subscribed were answered.
	redistest.Eventually(t, redistest.Hang, "w asleep", func() bool { return replies.answered.Load() == 2 })
	e.waitQueue("w")
	x := e.on(redistest.Lockkit(t, srv.Client(t))).mutex(append(opts, lockkit.WithOwner("x"))...)
	gotX := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), x)
	e.waitQueue("w", "x")

	silent.On()
	redistest.MustUnlock(t, holder) // wakes w
	redistest.Eventually(t, redistest.Hang, "w's acquire to be held up", func() bool { return silent.Held() > 0 })
	closed := make(chan error, 1)
	go func() { closed <- lcW.Close() }()
	<-lcW.Done()
	silent.Off() // w's acquire runs now, and takes the lock from the head of the queue
	redistest.WantErr(t, redistest.Receive(t, gotW, redistest.Hang, "w's Lock"), lockkit.ErrClosed)
	if err := redistest.Receive(t, closed, redistest.Hang, "Close"); err != nil {
		t.Fatal(err)
	}
	if w.Token() != 0 {
		t.Errorf("w's Token after a Lock that failed = %d, want 0", w.Token())
	}
	e.wantTurn(x, gotX, 10*time.Second, "x, behind the waiter whose Client closed")
}

// TestClose_with_a_joining_attempt_on_its_way_leaves_no_queue_entry: w's
// first attempt, which finds the lock held and queues w behind x, reaches
// the server only after w's Client closed. w's Lock returns ErrClosed and
// takes the entry that attempt made out of the queue: x, and then y,
// which joined after the attempt, are served at the next releases, not a
// waiter timeout (a minute here) later, and nothing of the lock is left.
func TestClose_with_a_joining_attempt_on_its_way_leaves_no_queue_entry(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	opts := []lockkit.Option{fair.WithWaiterTimeout(time.Minute)}
	holder := e.held()
	x := e.mutex(append(opts, lockkit.WithOwner("x"))...)
	gotX := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), x)
	e.waitQueue("x")

	rcW := srv.Client(t)
	silent := &redistest.Silence{Max: 2 * redistest.Hang, Match: isAcquire}
	t.Cleanup(silent.Off)
	rcW.AddHook(silent)
	lcW := redistest.Lockkit(t, rcW)
	w := e.on(lcW).mutex(append(opts, lockkit.WithOwner("w"))...)
	silent.On()
	gotW := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), w)
	redistest.Eventually(t, redistest.Hang, "w's attempt to be held up", func() bool { return silent.Held() > 0 })
	closed := make(chan error, 1)
	go func() { closed <- lcW.Close() }()
	<-lcW.Done()
	silent.Off() // w's attempt runs now, and queues w
	redistest.WantErr(t, redistest.Receive(t, gotW, redistest.Hang, "w's Lock"), lockkit.ErrClosed)
	if err := redistest.Receive(t, closed, redistest.Hang, "Close"); err != nil {
		t.Fatal(err)
	}
	e.wantQueue("x")
	y := e.mutex(append(opts, lockkit.WithOwner("y"))...)
	gotY := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), y)
	e.waitQueue("x", "y")
	redistest.MustUnlock(t, holder)
	e.wantTurn(x, gotX, 10*time.Second, "x, queued before w's attempt", "y")
	e.wantTurn(y, gotY, 10*time.Second, "y, queued after w's attempt")
}
