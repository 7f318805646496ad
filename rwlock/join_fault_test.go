package rwlock_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestWaits_out_a_subscription_that_fails_for_a_moment checks, for each
// side, that a call refused at first, whose subscription to be woken fails
// a few times (its connection cannot be opened, as while the server
// restarts), waits that out instead of returning the network error, and
// gets the lock once the holder on another Client releases it: a Lock
// behind a reader (its writers wake per process) and an RLock behind a
// writer.
func TestWaits_out_a_subscription_that_fails_for_a_moment(t *testing.T) {
	srv := redistest.StartServer(t)
	forEachSide(t, "RLock behind a writer", "Lock behind a reader", func(t *testing.T, write bool, what string) {
		name := redistest.Unique(t)
		h := rwlock.New(redistest.Lockkit(t, srv.Client(t)), name)
		hold, unhold := side(h, !write)
		must(t, h, "hold", hold)
		fail := &redistest.FailDials{}
		rc := srv.HookedClient(t, fail) // a connection for the attempts is open
		m := rwlock.New(redistest.Lockkit(t, rc), name)
		call, release := side(m, write)
		fail.Arm(3)
		got := async(t, func() error { return call(redistest.Ctx(t, spanTimeout)) })
		redistest.StillWaits(t, fail, got, what)
		must(t, h, "release", unhold)
		if err := redistest.Receive(t, got, waitTimeout, what); err != nil {
			t.Fatalf("%s whose subscription failed for a moment = %v; want the lock", what, err)
		}
		must(t, m, "release", release)
		redistest.AssertClean(t, srv.Client(t), name)
	})
}
