package otel_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/otel"
)

var orders = lockkit.LockInfo{Kind: "reentrant", Name: "orders:42", Owner: "a"}

func TestInstrument_invalid(t *testing.T) {
	valid := newClient(t, "127.0.0.1:1")
	invalid := lockkit.New(nil)
	defer invalid.Close()

	for _, tc := range []struct {
		what   string
		client *lockkit.Client
		opts   []otel.Option
	}{
		{"nil client", nil, nil},
		{"invalid client", invalid, nil},
		{"nil option", valid, []otel.Option{nil}},
	} {
		t.Run(tc.what, func(t *testing.T) {
			err := otel.Instrument(tc.client, tc.opts...)
			if !errors.Is(err, lockkit.ErrInvalid) {
				t.Fatalf("Instrument: %v, want ErrInvalid", err)
			}
			if n := len(tc.client.Traces()); n != 0 {
				t.Fatalf("a refused Instrument added %d traces", n)
			}
		})
	}
}

// TestInstrument_instruments checks every instrument's name, unit, kind
// and description once each hook has run.
func TestInstrument_instruments(t *testing.T) {
	tr, reader := instrumented(t)
	tr.WaitStart(lockkit.WaitStartInfo{Lock: orders})
	tr.WaitDone(lockkit.WaitDoneInfo{Lock: orders, Waited: time.Second})
	tr.Acquired(lockkit.AcquiredInfo{Lock: orders, Token: 1, Contended: true})
	tr.Renewed(lockkit.RenewInfo{Holds: 1, Renewed: 1, Took: time.Millisecond})
	tr.Lost(lockkit.LostInfo{Lock: orders, Token: 1, Held: time.Second, Err: lockkit.ErrLost})
	tr.Reconnected(lockkit.ReconnectInfo{Err: errors.New("EOF")})

	type kindOf int
	const (
		histogram kindOf = iota
		counter
		upDown
	)
	want := []struct {
		name, unit string
		kind       kindOf
	}{
		{"lockkit.lock.wait.duration", "s", histogram},
		{"lockkit.lock.hold.duration", "s", histogram},
		{"lockkit.lock.acquisitions", "{acquisition}", counter},
		{"lockkit.lock.renewals", "{renewal}", counter},
		{"lockkit.lock.lost", "{hold}", counter},
		{"lockkit.lock.held", "{hold}", upDown},
		{"lockkit.lock.waiting", "{waiter}", upDown},
		{"lockkit.watchdog.duration", "s", histogram},
		{"lockkit.pubsub.reconnects", "{reconnect}", counter},
	}
	got := collect(t, reader)
	if len(got) != len(want) {
		t.Errorf("%d instruments recorded, want %d", len(got), len(want))
	}
	for _, w := range want {
		m, ok := got[w.name]
		if !ok {
			t.Errorf("%s: not recorded", w.name)
			continue
		}
		if m.Unit != w.unit {
			t.Errorf("%s: unit %q, want %q", w.name, m.Unit, w.unit)
		}
		if m.Description == "" {
			t.Errorf("%s: no description", w.name)
		}
		switch d := m.Data.(type) {
		case metricdata.Histogram[float64]:
			if w.kind != histogram {
				t.Errorf("%s: a histogram", w.name)
			}
		case metricdata.Sum[int64]:
			if w.kind == histogram || d.IsMonotonic != (w.kind == counter) {
				t.Errorf("%s: a sum, monotonic %v", w.name, d.IsMonotonic)
			}
		default:
			t.Errorf("%s: data %T", w.name, m.Data)
		}
	}
}

func TestWait(t *testing.T) {
	tr, reader := instrumented(t)
	tr.WaitStart(lockkit.WaitStartInfo{Lock: orders})
	tr.WaitStart(lockkit.WaitStartInfo{Lock: orders})
	got := collect(t, reader)
	if n := sum(t, got, "lockkit.lock.waiting", kind("reentrant")); n != 2 {
		t.Fatalf("waiting %d during two waits, want 2", n)
	}

	tr.WaitDone(lockkit.WaitDoneInfo{Lock: orders, Waited: 250 * time.Millisecond})
	tr.WaitDone(lockkit.WaitDoneInfo{Lock: orders, Waited: 2 * time.Second, Err: lockkit.ErrNotObtained})
	got = collect(t, reader)
	if n := sum(t, got, "lockkit.lock.waiting", kind("reentrant")); n != 0 {
		t.Errorf("waiting %d once both waits ended, want 0", n)
	}
	for _, w := range []struct {
		outcome string
		seconds float64
	}{{"acquired", 0.25}, {"failed", 2}} {
		p := hist(t, got, "lockkit.lock.wait.duration", kind("reentrant"), outcome(w.outcome))
		if p.Count != 1 || p.Sum != w.seconds {
			t.Errorf("wait.duration{outcome=%s}: count %d sum %v, want 1 and %v", w.outcome, p.Count, p.Sum, w.seconds)
		}
	}
}

// TestHold_reentry checks that a hold re-entered and released twice is one
// hold: counted once in held and hold.duration, twice in acquisitions.
func TestHold_reentry(t *testing.T) {
	tr, reader := instrumented(t)
	tr.Acquired(lockkit.AcquiredInfo{Lock: orders, Token: 7})
	tr.Acquired(lockkit.AcquiredInfo{Lock: orders, Token: 7, Reentry: true})
	got := collect(t, reader)
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 1 {
		t.Fatalf("held %d with one hold re-entered, want 1", n)
	}

	tr.Released(lockkit.ReleasedInfo{Lock: orders, Token: 7, Held: time.Second})
	got = collect(t, reader)
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 1 {
		t.Fatalf("held %d after the release that undid the re-entry, want 1", n)
	}
	if _, ok := got["lockkit.lock.hold.duration"]; ok {
		t.Fatal("hold.duration recorded before the hold ended")
	}

	tr.Released(lockkit.ReleasedInfo{Lock: orders, Token: 7, Held: 3 * time.Second, Ended: true})
	got = collect(t, reader)
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 0 {
		t.Errorf("held %d after the hold ended, want 0", n)
	}
	p := hist(t, got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("released"))
	if p.Count != 1 || p.Sum != 3 {
		t.Errorf("hold.duration: count %d sum %v, want 1 and 3", p.Count, p.Sum)
	}
	for _, re := range []bool{false, true} {
		if n := sum(t, got, "lockkit.lock.acquisitions", kind("reentrant"), contended(false), reentry(re)); n != 1 {
			t.Errorf("acquisitions{reentry=%v}: %d, want 1", re, n)
		}
	}
}

// TestHold_lostThenUnlocked checks that a hold found lost and then
// unlocked (Unlock returning ErrLost) ends once.
func TestHold_lostThenUnlocked(t *testing.T) {
	tr, reader := instrumented(t)
	tr.Acquired(lockkit.AcquiredInfo{Lock: orders, Token: 7})
	tr.Lost(lockkit.LostInfo{Lock: orders, Token: 7, Held: 30 * time.Second, Err: lockkit.ErrLost})
	tr.Released(lockkit.ReleasedInfo{Lock: orders, Token: 7, Held: 31 * time.Second, Ended: true, Err: lockkit.ErrLost})

	got := collect(t, reader)
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 0 {
		t.Errorf("held %d, want 0", n)
	}
	if n := sum(t, got, "lockkit.lock.lost", kind("reentrant")); n != 1 {
		t.Errorf("lost %d, want 1", n)
	}
	if n := points(got["lockkit.lock.hold.duration"]); n != 1 {
		t.Errorf("hold.duration has %d data points, want 1 (lost)", n)
	}
	p := hist(t, got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("lost"))
	if p.Count != 1 || p.Sum != 30 {
		t.Errorf("hold.duration{outcome=lost}: count %d sum %v, want 1 and 30", p.Count, p.Sum)
	}
}

// TestHold_lostAtUnlock checks that a release that finds the hold lost
// ends it, even when the hold count did not reach 0.
func TestHold_lostAtUnlock(t *testing.T) {
	tr, reader := instrumented(t)
	tr.Acquired(lockkit.AcquiredInfo{Lock: orders, Token: 7})
	tr.Acquired(lockkit.AcquiredInfo{Lock: orders, Token: 7, Reentry: true})
	tr.Released(lockkit.ReleasedInfo{Lock: orders, Token: 7, Held: time.Second, Err: fmt.Errorf("unlock: %w", lockkit.ErrLost)})

	got := collect(t, reader)
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 0 {
		t.Errorf("held %d, want 0", n)
	}
	if p := hist(t, got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("lost")); p.Count != 1 {
		t.Errorf("hold.duration{outcome=lost}: count %d, want 1", p.Count)
	}
}

// TestInstrument_underWay checks that the end of a hold or a wait that
// began before Instrument does not drive held or waiting below 0.
func TestInstrument_underWay(t *testing.T) {
	tr, reader := instrumented(t)
	tr.Released(lockkit.ReleasedInfo{Lock: orders, Held: time.Second, Ended: true})
	tr.Lost(lockkit.LostInfo{Lock: orders, Held: time.Second, Err: lockkit.ErrLost})
	tr.WaitDone(lockkit.WaitDoneInfo{Lock: orders, Waited: time.Second})

	got := collect(t, reader)
	for _, name := range []string{"lockkit.lock.held", "lockkit.lock.waiting", "lockkit.lock.hold.duration"} {
		if m, ok := got[name]; ok {
			t.Errorf("%s recorded: %s", name, attrSets(m))
		}
	}
	if p := hist(t, got, "lockkit.lock.wait.duration", kind("reentrant"), outcome("acquired")); p.Count != 1 {
		t.Errorf("wait.duration: count %d, want 1 (a wait's end tells its duration)", p.Count)
	}
	if n := sum(t, got, "lockkit.lock.lost", kind("reentrant")); n != 1 {
		t.Errorf("lost %d, want 1", n)
	}
}

// TestRWLock_mode checks that rwlock measurements carry lock.mode, and
// that the read and write holds of one owner are two holds.
func TestRWLock_mode(t *testing.T) {
	tr, reader := instrumented(t)
	w := lockkit.LockInfo{Kind: "rwlock", Name: "cache", Owner: "a"}
	r := w
	r.Read = true
	tr.Acquired(lockkit.AcquiredInfo{Lock: w, Token: 1})
	tr.Acquired(lockkit.AcquiredInfo{Lock: r, Token: 2})
	tr.Released(lockkit.ReleasedInfo{Lock: w, Token: 1, Held: time.Second, Ended: true})

	got := collect(t, reader)
	if n := sum(t, got, "lockkit.lock.held", kind("rwlock"), mode("read")); n != 1 {
		t.Errorf("held{read} %d, want 1", n)
	}
	if n := sum(t, got, "lockkit.lock.held", kind("rwlock"), mode("write")); n != 0 {
		t.Errorf("held{write} %d, want 0", n)
	}
	for _, m := range []string{"read", "write"} {
		if n := sum(t, got, "lockkit.lock.acquisitions", kind("rwlock"), mode(m), contended(false), reentry(false)); n != 1 {
			t.Errorf("acquisitions{%s} %d, want 1", m, n)
		}
	}
	hist(t, got, "lockkit.lock.hold.duration", kind("rwlock"), mode("write"), outcome("released"))
}

func TestRenewed(t *testing.T) {
	tr, reader := instrumented(t)
	tr.Renewed(lockkit.RenewInfo{Holds: 5, Renewed: 3, Retry: 1, Lost: 1, Took: 2 * time.Millisecond})
	tr.Renewed(lockkit.RenewInfo{Holds: 4, Renewed: 4, Took: 3 * time.Millisecond})
	tr.Renewed(lockkit.RenewInfo{Holds: 2, Retry: 2, Took: time.Second, Err: errors.New("i/o timeout")})

	got := collect(t, reader)
	for o, want := range map[string]int64{"renewed": 7, "retry": 3, "lost": 1} {
		if n := sum(t, got, "lockkit.lock.renewals", outcome(o)); n != want {
			t.Errorf("renewals{outcome=%s}: %d, want %d", o, n, want)
		}
	}
	if n := points(got["lockkit.lock.renewals"]); n != 3 {
		t.Errorf("renewals has %d data points, want 3", n)
	}
	if p := hist(t, got, "lockkit.watchdog.duration", outcome("ok")); p.Count != 2 || p.Sum != 0.005 {
		t.Errorf("watchdog.duration{ok}: count %d sum %v, want 2 and 0.005", p.Count, p.Sum)
	}
	if p := hist(t, got, "lockkit.watchdog.duration", outcome("failed")); p.Count != 1 || p.Sum != 1 {
		t.Errorf("watchdog.duration{failed}: count %d sum %v, want 1 and 1", p.Count, p.Sum)
	}
}

func TestReconnected(t *testing.T) {
	tr, reader := instrumented(t)
	tr.Reconnected(lockkit.ReconnectInfo{Err: errors.New("EOF")})
	tr.Reconnected(lockkit.ReconnectInfo{Err: errors.New("EOF")})
	if n := sum(t, collect(t, reader), "lockkit.pubsub.reconnects"); n != 2 {
		t.Errorf("reconnects %d, want 2", n)
	}
}

// everyLockEvent runs each hook that reports a lock once.
func everyLockEvent(tr *lockkit.Trace, l lockkit.LockInfo) {
	tr.WaitStart(lockkit.WaitStartInfo{Lock: l})
	tr.WaitDone(lockkit.WaitDoneInfo{Lock: l, Waited: time.Second})
	tr.Acquired(lockkit.AcquiredInfo{Lock: l, Token: 1, Contended: true})
	tr.Released(lockkit.ReleasedInfo{Lock: l, Token: 1, Held: time.Second, Ended: true})
	tr.Acquired(lockkit.AcquiredInfo{Lock: l, Token: 2})
	tr.Lost(lockkit.LostInfo{Lock: l, Token: 2, Held: time.Second, Err: lockkit.ErrLost})
}

var lockInstruments = []string{
	"lockkit.lock.wait.duration", "lockkit.lock.hold.duration", "lockkit.lock.acquisitions",
	"lockkit.lock.lost", "lockkit.lock.held", "lockkit.lock.waiting",
}

// eachLockSet calls check with every attribute set that each instrument of
// lockInstruments recorded in got, and fails the test for an instrument
// that recorded nothing.
func eachLockSet(t *testing.T, got map[string]metricdata.Metrics, check func(instrument string, s attribute.Set)) {
	t.Helper()
	for _, n := range lockInstruments {
		sets := attributeSets(got[n])
		if len(sets) == 0 {
			t.Errorf("%s: nothing recorded", n)
		}
		for _, s := range sets {
			check(n, s)
		}
	}
}

func TestLockName_offByDefault(t *testing.T) {
	tr, reader := instrumented(t)
	everyLockEvent(tr, orders)
	eachLockSet(t, collect(t, reader), func(n string, s attribute.Set) {
		if s.HasValue("lock.name") {
			t.Errorf("%s: lock.name present by default: {%s}", n, s.Encoded(nil))
		}
	})
}

func TestLockName_on(t *testing.T) {
	tr, reader := instrumented(t, otel.WithLockName(true))
	everyLockEvent(tr, orders)
	got := collect(t, reader)
	eachLockSet(t, got, func(n string, s attribute.Set) {
		if v, ok := s.Value("lock.name"); !ok || v.AsString() != "orders:42" {
			t.Errorf("%s: lock.name %q (present %v), want orders:42", n, v.AsString(), ok)
		}
	})
	sum(t, got, "lockkit.lock.held", kind("reentrant"), name("orders:42"))
}

// TestInstrument_globalMeterProvider checks that without WithMeterProvider
// the instruments come from the global MeterProvider, even one set after
// Instrument.
func TestInstrument_globalMeterProvider(t *testing.T) {
	otelapi.SetMeterProvider(noop.NewMeterProvider())
	t.Cleanup(func() { otelapi.SetMeterProvider(noop.NewMeterProvider()) })

	c := newClient(t, "127.0.0.1:1")
	mp, reader := meterProvider(t)
	otelapi.SetMeterProvider(mp)
	if err := otel.Instrument(c); err != nil {
		t.Fatalf("Instrument: %v", err)
	}
	c.Traces()[0].Reconnected(lockkit.ReconnectInfo{})
	if n := sum(t, collect(t, reader), "lockkit.pubsub.reconnects"); n != 1 {
		t.Errorf("reconnects %d, want 1", n)
	}
}

// TestRecorder_concurrent runs every hook from many goroutines at once
// (for the race detector), and checks that held and waiting come back to
// 0 and no acquisition is missed.
func TestRecorder_concurrent(t *testing.T) {
	tr, reader := instrumented(t)
	const goroutines, rounds = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			l := lockkit.LockInfo{Kind: "fair", Name: "jobs", Owner: fmt.Sprint("owner-", g)}
			for range rounds {
				tr.WaitStart(lockkit.WaitStartInfo{Lock: l})
				tr.WaitDone(lockkit.WaitDoneInfo{Lock: l, Waited: time.Millisecond})
				tr.Acquired(lockkit.AcquiredInfo{Lock: l, Contended: true})
				tr.Renewed(lockkit.RenewInfo{Holds: 1, Renewed: 1})
				tr.Released(lockkit.ReleasedInfo{Lock: l, Held: time.Millisecond, Ended: true})
			}
		})
	}
	wg.Wait()
	got := collect(t, reader)
	if n := sum(t, got, "lockkit.lock.held", kind("fair")); n != 0 {
		t.Errorf("held %d, want 0", n)
	}
	if n := sum(t, got, "lockkit.lock.waiting", kind("fair")); n != 0 {
		t.Errorf("waiting %d, want 0", n)
	}
	if n := sum(t, got, "lockkit.lock.acquisitions", kind("fair"), contended(true), reentry(false)); n != goroutines*rounds {
		t.Errorf("acquisitions %d, want %d", n, goroutines*rounds)
	}
	if p := hist(t, got, "lockkit.lock.hold.duration", kind("fair"), outcome("released")); p.Count != goroutines*rounds {
		t.Errorf("hold.duration count %d, want %d", p.Count, goroutines*rounds)
	}
}
