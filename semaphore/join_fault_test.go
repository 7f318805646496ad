package semaphore_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestAcquire_waits_out_a_subscription_that_fails_for_a_moment: an
// Acquire refused at first joins the queue and subscribes to its own
// channel, and that subscription's connection fails a few times, as
// while the server restarts. Acquire waits that out, as it waits out a
// restart once subscribed, and gets the permits when the holder releases
// them, instead of failing at once.
func TestAcquire_waits_out_a_subscription_that_fails_for_a_moment(t *testing.T) {
	srv := redistest.StartServer(t)
	s, name := newSemaphore(t, srv.Client(t), 2)
	held := mustAcquire(t, s, 2)
	fail := &redistest.FailDials{}
	rc := srv.HookedClient(t, fail) // a connection for the attempts is open
	waiter := semaphore.New(redistest.Lockkit(t, rc), name, 2)
	fail.Arm(3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	type result struct {
		p   *semaphore.Permits
		err error
	}
	got := make(chan result, 1)
	go func() {
		p, err := waiter.Acquire(ctx, 1)
		got <- result{p, err}
	}()
	redistest.StillWaits(t, fail, got, "Acquire")
	waitQueued(t, srv.Client(t), name, 1)
	mustRelease(t, held)
	r := redistest.Receive(t, got, 20*time.Second, "the waiter's Acquire")
	if r.err != nil {
		t.Fatalf("Acquire whose subscription failed for a moment = %v; want the permit", r.err)
	}
	mustRelease(t, r.p)
	redistest.AssertClean(t, srv.Client(t), name)
}
