package otel_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestInstrument_in_cohort_mode_measures_a_hold_lost_to_a_stalled_server_once
// holds a lock in cohort mode (reentrant.WithLocalHandoff) while its
// server stops answering for longer than the lease: the process's hold is
// lost, and the process gives it back in Redis once the server answers,
// which reports its end (Released, with the loss) after its loss. The
// hold is measured lost once, and ended once: lost 1, one
// hold.duration{outcome=lost} and none released, held back to 0. The
// next hold, taken once the lost one is given back, is measured as a hold
// of its own.
func TestInstrument_in_cohort_mode_measures_a_hold_lost_to_a_stalled_server_once(t *testing.T) {
	s := redistest.StartServer(t)
	c, reader := instrumentedOn(t, s.Client(t), lockkit.WithWatchdogTimeout(300*time.Millisecond))
	name := redistest.Unique(t)
	handoff := reentrant.WithLocalHandoff(4, time.Second)
	m, next := reentrant.New(c, name, handoff), reentrant.New(c, name, handoff)
	redistest.MustLock(t, m)
	s.Stall(t, 1500*time.Millisecond)
	redistest.Receive(t, m.Lost(), redistest.Hang, "the hold to be found lost")
	// Returns once the process gave the lost hold back, the server
	// answering again.
	redistest.WantErr(t, m.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost)

	got := collect(t, reader)
	wantLostOnce(t, got)
	if p := hist(t, got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("lost")); p.Count != 1 {
		t.Errorf("hold.duration{outcome=lost}: count %d, want 1", p.Count)
	}

	redistest.MustLock(t, next)
	redistest.MustUnlock(t, next)
	got = collect(t, reader)
	if n := sum(t, got, "lockkit.lock.acquisitions", kind("reentrant"), contended(false), reentry(false)); n != 2 {
		t.Errorf("acquisitions %d, want the lost hold and the next", n)
	}
	if p := hist(t, got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("released")); p.Count != 1 {
		t.Errorf("hold.duration{outcome=released}: count %d, want the next hold's", p.Count)
	}
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 0 {
		t.Errorf("held %d after both holds ended, want 0", n)
	}
}
