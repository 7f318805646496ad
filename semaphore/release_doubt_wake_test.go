package semaphore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestRelease_in_doubt_settled_in_the_background_wakes_the_waiter_it_serves:
// a waiter sleeps in the queue while the holder's Release never reaches
// the server and is never called again. The release settled in the
// background wakes the waiter with a message, as a Release does (one
// wake-up, not its heartbeat), and the waiter gets the permit long before
// the holder's lease, which the watchdog renewed, could end.
func TestRelease_in_doubt_settled_in_the_background_wakes_the_waiter_it_serves(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	refuse := &redistest.RefuseSend{Match: redistest.IsScript}
	rc.AddHook(refuse)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	s, name := newSemaphore(t, rc, 1, long)
	p := mustAcquire(t, s, 1)
	wc := redistest.Lockkit(t, srv.Client(t))
	got := acquireAsync(redistest.Ctx(t, redistest.Hang), t, semaphore.New(wc, name, 1, long), 1)
	waitSleeping(t, srv.Client(t), wc, name, 1)
	wakes := countWakes(t, srv.Client(t), name)
	refuse.Arm()
	if err := p.Release(redistest.Ctx(t, redistest.Hang)); !errors.Is(err, redistest.ErrNotSent) {
		t.Fatalf("Release whose request was not sent = %v", err)
	}
	q := served(t, got, "the waiter to be served by the release settled in the background")
	if n := wakes.since(); n != 1 {
		t.Fatalf("the release settled in the background woke %d waiters, want 1", n)
	}
	mustRelease(t, q)
	mustRelease(t, p) // the outcome kept for it
	redistest.AssertClean(t, srv.Client(t), name)
}
