package otel_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/otel"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/spin"
)

// TestInstrument_names_the_kind_of_every_lock takes and ends one hold of
// every kind that reports to a Trace on a real server, and checks that
// each is measured under the lock.kind the package doc lists (with
// lock.mode read or write for an rwlock, and for no other kind): one
// acquisition, one hold released, nothing held afterwards.
func TestInstrument_names_the_kind_of_every_lock(t *testing.T) {
	s := redistest.StartServer(t)
	c, reader := instrumentedOn(t, s.Client(t))
	ctx := redistest.Ctx(t, redistest.Hang)
	hold := func(lock, unlock func(context.Context) error) {
		t.Helper()
		if err := lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	name := func() string { return redistest.Unique(t) }
	re, sp, fa := reentrant.New(c, name()), spin.New(c, name()), fair.New(c, name())
	rw := rwlock.New(c, name())
	red := multilock.NewRedLock([]*lockkit.Client{c}, name())
	for _, m := range []interface {
		Lock(context.Context) error
		Unlock(context.Context) error
	}{re, sp, fa, rw, red} {
		hold(m.Lock, m.Unlock)
	}
	hold(rw.RLock, rw.RUnlock)
	l, err := election.New(c, name()).Campaign(ctx, "v")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := semaphore.New(c, name(), 2).Acquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Release(ctx); err != nil {
		t.Fatal(err)
	}

	got := collect(t, reader)
	for _, attrs := range [][]attribute.KeyValue{
		{kind("reentrant")}, {kind("spin")}, {kind("fair")}, {kind("redlock")},
		{kind("rwlock"), mode("write")}, {kind("rwlock"), mode("read")},
		{kind("election")}, {kind("semaphore")},
	} {
		if n := sum(t, got, "lockkit.lock.acquisitions", append(attrs, contended(false), reentry(false))...); n != 1 {
			t.Errorf("acquisitions{%v}: %d, want 1", attrs, n)
		}
		if p := hist(t, got, "lockkit.lock.hold.duration", append(attrs, outcome("released"))...); p.Count != 1 {
			t.Errorf("hold.duration{%v}: count %d, want 1", attrs, p.Count)
		}
		if n := sum(t, got, "lockkit.lock.held", attrs...); n != 0 {
			t.Errorf("held{%v}: %d after the release, want 0", attrs, n)
		}
	}
	if n := points(got["lockkit.lock.acquisitions"]); n != 8 {
		t.Errorf("acquisitions has %d data points, want the 8 above: %s", n, attrSets(got["lockkit.lock.acquisitions"]))
	}
}

// TestInstrument_measures_a_multilock_Mutex_through_its_members: a
// multilock.Mutex has no kind of its own; the package doc says its
// members are measured, each as a lock of its kind. Holding two reentrant
// locks through one Mutex is two acquisitions and two holds of kind
// reentrant, and nothing else.
func TestInstrument_measures_a_multilock_Mutex_through_its_members(t *testing.T) {
	s := redistest.StartServer(t)
	c, reader := instrumentedOn(t, s.Client(t))
	both := multilock.New([]lockkit.Locker{reentrant.New(c, redistest.Unique(t)), reentrant.New(c, redistest.Unique(t))})
	redistest.MustLock(t, both)
	if n := sum(t, collect(t, reader), "lockkit.lock.held", kind("reentrant")); n != 2 {
		t.Errorf("held %d while the Mutex holds two members, want 2", n)
	}
	redistest.MustUnlock(t, both)
	got := collect(t, reader)
	wantReleasedHolds(t, got, "reentrant", 2, "one per member")
	if n := points(got["lockkit.lock.acquisitions"]); n != 1 {
		t.Errorf("acquisitions has %d data points, want the members' only: %s", n, attrSets(got["lockkit.lock.acquisitions"]))
	}
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 0 {
		t.Errorf("held %d after the Unlock, want 0", n)
	}
}

// TestInstrument_measures_a_RedLock_through_its_first_Client: a RedLock
// over three masters reports its hold once, to the hooks of the first of
// its Clients, as the package doc says: instrumenting the others measures
// nothing of it.
func TestInstrument_measures_a_RedLock_through_its_first_Client(t *testing.T) {
	var clients []*lockkit.Client
	for _, s := range redistest.StartMasters(t, 3) {
		clients = append(clients, redistest.Lockkit(t, s.Client(t)))
	}
	first, firstReader := meterProvider(t)
	others, othersReader := meterProvider(t)
	if err := otel.Instrument(clients[0], otel.WithMeterProvider(first)); err != nil {
		t.Fatal(err)
	}
	for _, c := range clients[1:] {
		if err := otel.Instrument(c, otel.WithMeterProvider(others)); err != nil {
			t.Fatal(err)
		}
	}
	r := multilock.NewRedLock(clients, redistest.Unique(t))
	redistest.MustLock(t, r)
	redistest.MustUnlock(t, r)
	wantReleasedHolds(t, collect(t, firstReader), "redlock", 1, "through the first Client")
	// Their watchdogs renew their nodes' parts of the hold: only the
	// measurements of a lock must be absent.
	m := collect(t, othersReader)
	for _, n := range lockInstruments {
		if v, ok := m[n]; ok {
			t.Errorf("%s recorded through the other Clients: %s", n, attrSets(v))
		}
	}
}
