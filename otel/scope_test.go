package otel_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/otel"
	"github.com/lockkit/lockkit/reentrant"
)

// TestInstrument_measures_locks_made_before_it_but_not_holds_under_way
// makes two lock values, takes a hold with the first, then instruments
// the Client: the second lock, made before Instrument, is measured from
// then on (Instrument measures every lock of the Client), while the end
// of the hold taken before Instrument is not (lockkit.lock.held must not
// go below what it counted, and hold.duration has one hold only).
func TestInstrument_measures_locks_made_before_it_but_not_holds_under_way(t *testing.T) {
	s := redistest.StartServer(t)
	c := redistest.Lockkit(t, s.Client(t))
	early, later := reentrant.New(c, redistest.Unique(t)), reentrant.New(c, redistest.Unique(t))
	redistest.MustLock(t, early)
	mp, reader := meterProvider(t)
	if err := otel.Instrument(c, otel.WithMeterProvider(mp)); err != nil {
		t.Fatalf("Instrument: %v", err)
	}

	redistest.MustLock(t, later)
	if n := sum(t, collect(t, reader), "lockkit.lock.held", kind("reentrant")); n != 1 {
		t.Errorf("held %d while the lock made before Instrument holds, want 1", n)
	}
	redistest.MustUnlock(t, later)
	redistest.MustUnlock(t, early)
	got := collect(t, reader)
	wantReleasedHolds(t, got, "reentrant", 1, "the hold taken after Instrument; the one under way at Instrument is not measured")
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 0 {
		t.Errorf("held %d after both holds ended, want 0", n)
	}
}

// TestInstrument_twice_measures_every_event_twice checks the doc of
// Instrument: a Client instrumented twice with one MeterProvider counts
// one acquire twice.
func TestInstrument_twice_measures_every_event_twice(t *testing.T) {
	s := redistest.StartServer(t)
	c := redistest.Lockkit(t, s.Client(t))
	mp, reader := meterProvider(t)
	for range 2 {
		if err := otel.Instrument(c, otel.WithMeterProvider(mp)); err != nil {
			t.Fatalf("Instrument: %v", err)
		}
	}
	m := reentrant.New(c, redistest.Unique(t))
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
	wantReleasedHolds(t, collect(t, reader), "reentrant", 2, "one acquire and hold, each measured twice")
}

// TestInstrument_measures_nothing_of_a_countdown_latch waits on a latch
// until it is counted down, on an instrumented Client: the package doc
// says a countdown latch reports nothing, so no instrument records.
func TestInstrument_measures_nothing_of_a_countdown_latch(t *testing.T) {
	s := redistest.StartServer(t)
	c, reader := instrumentedOn(t, s.Client(t))
	name := redistest.Unique(t)
	l := latch.New(c, name, 2)
	if _, err := l.CountDown(redistest.Ctx(t, redistest.Hang)); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- l.Await(redistest.Ctx(t, redistest.Hang)) }()
	redistest.Eventually(t, redistest.Hang, "Await to sleep", func() bool {
		return c.Notifier().Sleeping(core.KeysFor(c, name).Channel) == 1
	})
	if _, err := l.CountDown(redistest.Ctx(t, redistest.Hang)); err != nil {
		t.Fatal(err)
	}
	if err := redistest.Receive(t, got, redistest.Hang, "Await to return"); err != nil {
		t.Fatal(err)
	}
	if m := collect(t, reader); len(m) != 0 {
		for n, v := range m {
			t.Errorf("%s recorded for a latch: %s", n, attrSets(v))
		}
	}
}
