package otel_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestInstrument_measures_one_hold_for_values_that_share_an_owner_id: two
// values with one owner id re-enter each other's hold (lockkit.WithOwner),
// so that the lock stays held until the last of them unlocks. The hold is
// one: held is 1 from the first Lock to the last Unlock, the second Lock
// counts as a re-entry, and hold.duration has one hold, ended by the last
// Unlock.
func TestInstrument_measures_one_hold_for_values_that_share_an_owner_id(t *testing.T) {
	s := redistest.StartServer(t)
	c, reader := instrumentedOn(t, s.Client(t))
	name := redistest.Unique(t)
	a := reentrant.New(c, name, lockkit.WithOwner("job"))
	b := reentrant.New(c, name, lockkit.WithOwner("job"))
	redistest.MustLock(t, a)
	redistest.MustLock(t, b)
	redistest.MustUnlock(t, a)

	got := collect(t, reader)
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 1 {
		t.Errorf("held %d while b still holds the lock, want 1", n)
	}
	if n := points(got["lockkit.lock.hold.duration"]); n != 0 {
		t.Errorf("hold.duration has %d data points while b still holds the lock, want none", n)
	}
	if n := sum(t, got, "lockkit.lock.acquisitions", kind("reentrant"), contended(false), reentry(true)); n != 1 {
		t.Errorf("acquisitions{reentry=true} %d, want 1 (b's Lock re-entered a's hold)", n)
	}

	redistest.MustUnlock(t, b)
	got = collect(t, reader)
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 0 {
		t.Errorf("held %d once both unlocked, want 0", n)
	}
	wantReleasedHolds(t, got, "reentrant", 1, "the shared hold")
}

// TestInstrument_counts_a_shared_hold_lost_once: when the hold two values
// share (one owner id) is lost, each value is told, and each Unlock then
// returns ErrLost; the hold is lost once, and ends once.
func TestInstrument_counts_a_shared_hold_lost_once(t *testing.T) {
	s := redistest.StartServer(t)
	rc := s.Client(t)
	c, reader := instrumentedOn(t, rc, lockkit.WithWatchdogTimeout(3*time.Second))
	name := redistest.Unique(t)
	a := reentrant.New(c, name, lockkit.WithOwner("job"))
	b := reentrant.New(c, name, lockkit.WithOwner("job"))
	redistest.MustLock(t, a)
	redistest.MustLock(t, b)
	if err := rc.Del(redistest.Ctx(t, redistest.Hang), core.KeysFor(c, name).Base).Err(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, a.Lost(), redistest.Hang, "a's hold to be found lost")
	redistest.Receive(t, b.Lost(), redistest.Hang, "b's hold to be found lost")
	redistest.Eventually(t, redistest.Hang, "the loss to be measured", func() bool {
		return has(collect(t, reader), "lockkit.lock.lost", kind("reentrant"))
	})
	redistest.WantErr(t, a.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost)
	redistest.WantErr(t, b.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost)

	got := collect(t, reader)
	wantLostOnce(t, got)
	if p := hist(t, got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("lost")); p.Count != 1 {
		t.Errorf("hold.duration{outcome=lost}: count %d, want 1", p.Count)
	}
}
