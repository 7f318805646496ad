package otel_test

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/otel"
	"github.com/lockkit/lockkit/semaphore"
)

// TestInstrument_counts_each_hold_of_one_semaphore takes two holds of
// permits from one Semaphore value, as goroutines sharing it do, and
// checks that lockkit.lock.held counts both while they last and
// lockkit.lock.hold.duration measures both when they end: each Acquire
// is a hold of its own, released on its own.
func TestInstrument_counts_each_hold_of_one_semaphore(t *testing.T) {
	s := redistest.StartServer(t)
	c := newClient(t, s.Addr())
	mp, reader := meterProvider(t)
	if err := otel.Instrument(c, otel.WithMeterProvider(mp)); err != nil {
		t.Fatalf("Instrument: %v", err)
	}
	ctx := redistest.Ctx(t, 30*1e9)
	sem := semaphore.New(c, redistest.Unique(t), 3)
	a, err := sem.Acquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sem.Acquire(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n := sum(t, collect(t, reader), "lockkit.lock.held", kind("semaphore")); n != 2 {
		t.Errorf("held %d while two holds last, want 2", n)
	}
	for _, p := range []*semaphore.Permits{a, b} {
		if err := p.Release(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	got := collect(t, reader)
	if n := sum(t, got, "lockkit.lock.held", kind("semaphore")); n != 0 {
		t.Errorf("held %d after both holds ended, want 0", n)
	}
	if p := hist(t, got, "lockkit.lock.hold.duration", kind("semaphore"), outcome("released")); p.Count != 2 {
		t.Errorf("hold.duration: count %d, want 2 holds", p.Count)
	}
}
