package latch_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/semaphore"
)

// TestWithExpiry_as_a_Client_default_applies_to_latches_only gives a
// Client WithExpiry(1 min) as a default: a latch of the Client lives a
// minute after its count-down, while a semaphore of the same Client, to
// which the option does not apply, is made without error and keeps the
// number of permits set at run time for 24 hours.
func TestWithExpiry_as_a_Client_default_applies_to_latches_only(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	c := lockkit.New(rc, latch.WithExpiry(time.Minute))
	t.Cleanup(func() { _ = c.Close() })
	ctx := redistest.Ctx(t, redistest.Hang)

	name := redistest.Unique(t)
	mustCountDown(t, latch.New(c, name, 2), 1)
	if d, err := rc.PTTL(ctx, "lockkit:{"+name+"}").Result(); err != nil || d <= 50*time.Second || d > time.Minute {
		t.Fatalf("TTL of the latch = %v, %v; want about the Client's 1 min", d, err)
	}

	sem := redistest.Unique(t)
	if err := semaphore.New(c, sem, 2).SetPermits(ctx, 3); err != nil {
		t.Fatalf("SetPermits of a semaphore of the Client = %v", err)
	}
	if d, err := rc.PTTL(ctx, "lockkit:{"+sem+"}:permits").Result(); err != nil || d <= 23*time.Hour {
		t.Fatalf("TTL of the semaphore's number = %v, %v; want about 24 h, not the latches' expiry", d, err)
	}
}

// TestAwait_keeps_waiting_when_its_latch_expires lets a latch of 2 expire
// after one count-down while a waiter sleeps: the latch starts afresh
// with its count, the waiter keeps waiting through the first count-down
// of the new round, and the second opens the latch and wakes it.
func TestAwait_keeps_waiting_when_its_latch_expires(t *testing.T) {
	mr, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	l := latch.New(c, name, 2, latch.WithExpiry(time.Minute))
	got := awaitAsync(redistest.Ctx(t, redistest.Hang), l)
	waitSleeping(t, c, name, 1)
	mustCountDown(t, l, 1)
	mr.FastForward(time.Minute)
	mustCountDown(t, l, 1)
	redistest.NotYet(t, got, "the waiter returned before the new round opened the latch")
	waitSleeping(t, c, name, 1)
	mustCountDown(t, l, 0)
	if err := redistest.Receive(t, got, redistest.Hang, "Await to return"); err != nil {
		t.Fatalf("Await = %v", err)
	}
}
