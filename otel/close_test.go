package otel_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestInstrument_Close_ends_the_holds_and_waits_it_cuts_short closes an
// instrumented Client while one owner holds a lock and another waits for
// it: the hold ends as lost (lockkit.lock.lost, hold.duration
// {outcome=lost}), the wait ends as failed, and lockkit.lock.held and
// lockkit.lock.waiting come back to 0: nothing stays counted live after
// Close.
func TestInstrument_Close_ends_the_holds_and_waits_it_cuts_short(t *testing.T) {
	s := redistest.StartServer(t)
	c, reader := instrumentedOn(t, s.Client(t))
	name := redistest.Unique(t)
	holder := reentrant.New(c, name)
	redistest.MustLock(t, holder)
	got := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), reentrant.New(c, name))
	redistest.Eventually(t, redistest.Hang, "the waiter to sleep", func() bool {
		return c.Notifier().Sleeping("lockkit:{"+name+"}:ch:"+c.Notifier().ID()) == 1
	})

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, redistest.Receive(t, got, redistest.Hang, "the waiter's Lock to return"), lockkit.ErrClosed)
	m := collect(t, reader)
	for _, inst := range []string{"lockkit.lock.held", "lockkit.lock.waiting"} {
		if n := sum(t, m, inst, kind("reentrant")); n != 0 {
			t.Errorf("%s %d after Close, want 0", inst, n)
		}
	}
	if n := sum(t, m, "lockkit.lock.lost", kind("reentrant")); n != 1 {
		t.Errorf("lost %d, want the hold Close cut short", n)
	}
	if p := hist(t, m, "lockkit.lock.hold.duration", kind("reentrant"), outcome("lost")); p.Count != 1 {
		t.Errorf("hold.duration{outcome=lost}: count %d, want 1", p.Count)
	}
	if p := hist(t, m, "lockkit.lock.wait.duration", kind("reentrant"), outcome("failed")); p.Count != 1 {
		t.Errorf("wait.duration{outcome=failed}: count %d, want 1", p.Count)
	}
}
