package otel_test

import (
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestInstrument_measures_a_hold_whose_key_vanished deletes a held lock's
// key on the server: the watchdog's next renewal finds the hold gone
// (lockkit.lock.renewals{outcome=lost}), the loss is counted in
// lockkit.lock.lost, and the Unlock that then returns ErrLost does not end
// the hold a second time: one hold.duration{outcome=lost}, held back to 0.
func TestInstrument_measures_a_hold_whose_key_vanished(t *testing.T) {
	s := redistest.StartServer(t)
	rc := s.Client(t)
	c, reader := instrumentedOn(t, rc, lockkit.WithWatchdogTimeout(3*time.Second))
	name := redistest.Unique(t)
	m := reentrant.New(c, name)
	redistest.MustLock(t, m)
	if err := rc.Del(redistest.Ctx(t, redistest.Hang), core.KeysFor(c, name).Base).Err(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, m.Lost(), redistest.Hang, "the hold to be found lost")
	redistest.Eventually(t, redistest.Hang, "the loss to be measured", func() bool {
		return has(collect(t, reader), "lockkit.lock.lost", kind("reentrant"))
	})
	redistest.WantErr(t, m.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost)

	got := collect(t, reader)
	if n := sum(t, got, "lockkit.lock.renewals", outcome("lost")); n != 1 {
		t.Errorf("renewals{outcome=lost} %d, want the renewal that found the hold gone", n)
	}
	wantLostOnce(t, got)
	if p := hist(t, got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("lost")); p.Count != 1 {
		t.Errorf("hold.duration{outcome=lost}: count %d, want 1", p.Count)
	}
}

// TestInstrument_counts_a_hold_ended_by_WithMaxHold as lost: the package
// doc lists WithMaxHold among the causes lockkit.lock.lost counts.
func TestInstrument_counts_a_hold_ended_by_WithMaxHold(t *testing.T) {
	s := redistest.StartServer(t)
	c, reader := instrumentedOn(t, s.Client(t), lockkit.WithWatchdogTimeout(3*time.Second))
	m := reentrant.New(c, redistest.Unique(t), lockkit.WithMaxHold(time.Second))
	redistest.MustLock(t, m)
	redistest.Receive(t, m.Lost(), redistest.Hang, "the hold to reach its maximum")
	redistest.Eventually(t, redistest.Hang, "the loss to be measured", func() bool {
		return has(collect(t, reader), "lockkit.lock.lost", kind("reentrant"))
	})
	// The lease may have run out by now: Unlock frees the lock or finds
	// it gone, and either way the hold ends once.
	if err := m.Unlock(redistest.Ctx(t, redistest.Hang)); err != nil && !errors.Is(err, lockkit.ErrLost) {
		t.Fatal(err)
	}

	got := collect(t, reader)
	wantLostOnce(t, got)
}

// TestInstrument_counts_a_loss_found_by_Unlock deletes a held lock's key
// and unlocks at once, before any renewal: the Unlock finds the hold lost
// (ErrLost), and the loss is counted in lockkit.lock.lost and ends the
// hold once, as lost, like a loss the watchdog finds.
func TestInstrument_counts_a_loss_found_by_Unlock(t *testing.T) {
	s := redistest.StartServer(t)
	rc := s.Client(t)
	c, reader := instrumentedOn(t, rc)
	name := redistest.Unique(t)
	m := reentrant.New(c, name)
	redistest.MustLock(t, m)
	if err := rc.Del(redistest.Ctx(t, redistest.Hang), core.KeysFor(c, name).Base).Err(); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, m.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost)

	got := collect(t, reader)
	wantLostOnce(t, got)
	if p := hist(t, got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("lost")); p.Count != 1 {
		t.Errorf("hold.duration{outcome=lost}: count %d, want 1", p.Count)
	}
}

// wantLostOnce checks that got measured one reentrant hold lost, and
// ended once: lost counts 1, held is back to 0, and hold.duration has one
// data point.
func wantLostOnce(t *testing.T, got map[string]metricdata.Metrics) {
	t.Helper()
	if n := sum(t, got, "lockkit.lock.lost", kind("reentrant")); n != 1 {
		t.Errorf("lost %d, want 1", n)
	}
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 0 {
		t.Errorf("held %d after the hold ended, want 0", n)
	}
	if n := points(got["lockkit.lock.hold.duration"]); n != 1 {
		t.Errorf("hold.duration has %d data points, want 1: %s", n, attrSets(got["lockkit.lock.hold.duration"]))
	}
}
