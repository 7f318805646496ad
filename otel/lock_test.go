package otel_test

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/otel"
	"github.com/lockkit/lockkit/reentrant"
)

// TestInstrument_reentrantLock takes real locks on an instrumented Client:
// owner a locks and re-enters, owner b waits, a unlocks twice, b gets the
// lock and unlocks. Every acquire, the wait and both holds are recorded.
func TestInstrument_reentrantLock(t *testing.T) {
	c := newClient(t, miniredis.RunT(t).Addr())
	mp, reader := meterProvider(t)
	if err := otel.Instrument(c, otel.WithMeterProvider(mp)); err != nil {
		t.Fatalf("Instrument: %v", err)
	}

	ctx := context.Background()
	const lock = "orders:42"
	a, b := reentrant.New(c, lock), reentrant.New(c, lock)
	for range 2 {
		if err := a.Lock(ctx); err != nil {
			t.Fatalf("a.Lock: %v", err)
		}
	}
	bDone := make(chan error, 1)
	go func() { bDone <- b.Lock(ctx) }()
	// b sleeps on the lock's channel (PREFIX:{NAME}:ch) once it has found
	// the lock taken and subscribed.
	redistest.Eventually(t, 10*time.Second, "b asleep in Lock", func() bool {
		return c.Notifier().Sleeping("lockkit:{"+lock+"}:ch:"+c.Notifier().ID()) == 1
	})
	got := collect(t, reader)
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 1 {
		t.Errorf("held %d while a holds, want 1", n)
	}
	if n := sum(t, got, "lockkit.lock.waiting", kind("reentrant")); n != 1 {
		t.Errorf("waiting %d while b waits, want 1", n)
	}

	for range 2 {
		if err := a.Unlock(ctx); err != nil {
			t.Fatalf("a.Unlock: %v", err)
		}
	}
	if err := <-bDone; err != nil {
		t.Fatalf("b.Lock: %v", err)
	}
	if err := b.Unlock(ctx); err != nil {
		t.Fatalf("b.Unlock: %v", err)
	}

	got = collect(t, reader)
	for _, w := range []struct {
		contended, reentry bool
	}{{false, false}, {false, true}, {true, false}} {
		if n := sum(t, got, "lockkit.lock.acquisitions", kind("reentrant"), contended(w.contended), reentry(w.reentry)); n != 1 {
			t.Errorf("acquisitions{contended=%v,reentry=%v}: %d, want 1", w.contended, w.reentry, n)
		}
	}
	if p := hist(t, got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("released")); p.Count != 2 || p.Sum <= 0 {
		t.Errorf("hold.duration: count %d sum %v, want 2 holds of some time", p.Count, p.Sum)
	}
	if p := hist(t, got, "lockkit.lock.wait.duration", kind("reentrant"), outcome("acquired")); p.Count != 1 || p.Sum <= 0 {
		t.Errorf("wait.duration: count %d sum %v, want 1 wait of some time", p.Count, p.Sum)
	}
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 0 {
		t.Errorf("held %d after both holds ended, want 0", n)
	}
	if n := sum(t, got, "lockkit.lock.waiting", kind("reentrant")); n != 0 {
		t.Errorf("waiting %d after the wait ended, want 0", n)
	}
}
