package otel_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestInstrument_ends_a_hold_whose_Unlock_is_settled_in_the_background
// checks that lockkit.lock.held goes back down for a hold whose Unlock
// failed (its request never left) and that the lock then released in the
// background, as the package doc says it does when a hold is released:
// the hold ends once, as released, in lockkit.lock.hold.duration, and is
// not counted lost.
func TestInstrument_ends_a_hold_whose_Unlock_is_settled_in_the_background(t *testing.T) {
	s := redistest.StartServer(t)
	rc := redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() { _ = rc.Close() })
	refuse := &redistest.RefuseSend{Match: redistest.IsScript}
	rc.AddHook(refuse)
	c, reader := instrumentedOn(t, rc)
	m := reentrant.New(c, redistest.Unique(t))
	redistest.MustLock(t, m)
	if n := sum(t, collect(t, reader), "lockkit.lock.held", kind("reentrant")); n != 1 {
		t.Fatalf("held %d while held, want 1", n)
	}
	refuse.Arm()
	ctx := redistest.Ctx(t, redistest.Hang)
	redistest.WantErr(t, m.Unlock(ctx), redistest.ErrNotSent)
	redistest.Eventually(t, redistest.Hang, "the Unlock left behind to be settled and measured", func() bool {
		return sum(t, collect(t, reader), "lockkit.lock.held", kind("reentrant")) == 0
	})
	got := collect(t, reader)
	if p := hist(t, got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("released")); p.Count != 1 {
		t.Errorf("hold.duration{outcome=released}: count %d, want 1", p.Count)
	}
	if has(got, "lockkit.lock.lost", kind("reentrant")) {
		t.Errorf("lockkit.lock.lost counted the hold released in the background")
	}
	if err := m.Unlock(ctx); err != nil {
		t.Errorf("Unlock after the background release: %v, want nil", err)
	}
}
