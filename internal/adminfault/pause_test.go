package adminfault_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// pauseModes are the CLIENT PAUSE modes: WRITE holds up the commands that
// may write (every script among them), ALL every command.
var pauseModes = []string{"WRITE", "ALL"}

// Bounds of the calls made during a pause: their ctx's timeout, and how
// late past it they may return.
const (
	pausedCallTimeout = 300 * time.Millisecond
	lateSlack         = 500 * time.Millisecond
)

// pause pauses the clients of every server of e for d in mode, as
// CLIENT PAUSE does.
func (e *env) pause(t *testing.T, d time.Duration, mode string) {
	t.Helper()
	e.Admin(t, "client", "pause", strconv.FormatInt(d.Milliseconds(), 10), mode)
}

// pausedLease is the watchdog timeout of the tests of pauses shorter than
// the lease.
const pausedLease = 5 * time.Second

// TestClientPause_calls_return_at_their_deadline_and_nothing_is_left_held
// pauses the servers (CLIENT PAUSE 2000 WRITE, and ALL) while a lock with
// a 5 s lease is held and waiters of the holder's Client and of another
// wait, and makes calls whose ctx ends after 300 ms meanwhile: a Lock of
// a free lock and the holder's Unlock each return at their deadline with
// an error matching context.DeadlineExceeded (in cohort mode the Unlock
// hands the hold over in memory and returns nil), and a TryLock of the
// held lock returns by its deadline without taking it. Once the pause is
// over, the Unlock called again returns nil, the waiters take the lock
// one after the other, and nothing is left of either lock: the acquire
// that was held up is given back.
func TestClientPause_calls_return_at_their_deadline_and_nothing_is_left_held(t *testing.T) {
	for _, mode := range pauseModes {
		t.Run(mode, func(t *testing.T) {
			forEachKindLease(t, pausedLease, func(t *testing.T, e *env) {
				holder := e.Owner(e.A, 0)
				faultkit.MustLock(t, holder)
				ctx := redistest.Ctx(t, redistest.Hang)
				w1, w2 := e.WaitBeside(t, ctx, e.A, 1), e.Wait(t, ctx, e.B, 2)
				freeName := e.Name + "-free"
				free := e.K.Owner(e.B.Nodes, freeName, 3)
				trier := e.Owner(e.B, 4)

				e.pause(t, 2*time.Second, mode)
				unlocked := e.K.Cohort // handed over in memory
				inTime(t, []pausedCall{
					{name: "Lock of a free lock", call: free.Lock, deadline: true},
					{name: "TryLock of the held lock", call: func(ctx context.Context) error {
						if ok, _ := trier.TryLock(ctx); ok {
							return errors.New("TryLock took the held lock")
						}
						return nil
					}},
					{name: "Unlock", call: holder.Unlock, deadline: !unlocked},
				})

				e.unpaused(t)
				if !unlocked {
					if err := holder.Unlock(redistest.Ctx(t, callBound)); err != nil && !errors.Is(err, lockkit.ErrNotHeld) {
						t.Errorf("Unlock called again after the pause = %v, want nil", err)
					}
				}
				serve(t, callBound, w1, w2)
				e.Clean(t, e.Name)
				e.Clean(t, freeName)
			})
		})
	}
}

// unpaused waits until the pause of every server of e is over: a write
// of a key of no lock is served.
func (e *env) unpaused(t *testing.T) {
	t.Helper()
	for _, c := range e.Admins {
		if err := c.Set(redistest.Ctx(t, callBound), "unpaused", "1", 0).Err(); err != nil {
			t.Fatalf("SET after the pause on %s: %v", c.Options().Addr, err)
		}
	}
}

// pausedCall is a call made while the server is paused.
type pausedCall struct {
	name string
	call func(context.Context) error
	// deadline is set when the call must fail with its ctx's error; else
	// it must return nil.
	deadline bool
}

// inTime makes the calls at once, each with a ctx that ends after
// pausedCall, and checks that each returns no later than lateSlack past
// its deadline, with an error matching context.DeadlineExceeded or nil as
// the call wants.
func inTime(t *testing.T, calls []pausedCall) {
	t.Helper()
	got := redistest.CallAtOnce(len(calls), pausedCallTimeout, func(ctx context.Context, i int) error { return calls[i].call(ctx) })
	for i, c := range calls {
		r := redistest.Receive(t, got[i], redistest.Hang, c.name+" to return")
		if c.deadline && !errors.Is(r.Err, context.DeadlineExceeded) {
			t.Errorf("%s during the pause = %v, want an error matching DeadlineExceeded", c.name, r.Err)
		}
		if !c.deadline && r.Err != nil {
			t.Errorf("%s during the pause = %v, want nil", c.name, r.Err)
		}
		if r.Took > pausedCallTimeout+lateSlack {
			t.Errorf("%s during the pause took %v, want at most %v", c.name, r.Took, pausedCallTimeout+lateSlack)
		}
	}
}
