package core

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// traceEvents reports one of each lock event through tr.
func traceEvents(ctx context.Context, tr *Tracer, h *Hold) {
	wctx, done := tr.waitStart(ctx)
	tr.Acquired(1, false, Contended(wctx))
	done(nil)
	tr.Released(h, true, nil)
	tr.Lost(h)
}

// TestTracer_without_hooks_allocates_nothing: a lock with no Trace pays a
// check per event, and allocates nothing.
func TestTracer_without_hooks_allocates_nothing(t *testing.T) {
	_, rc := redistest.Mini(t)
	cfg := Config{Client: redistest.Lockkit(t, rc), Name: "n"}
	tr := NewTracer(&cfg, false, false)
	h := NewHold(1)
	ctx := context.Background()
	if n := testing.AllocsPerRun(100, func() { traceEvents(ctx, tr, h) }); n != 0 {
		t.Fatalf("%v allocations per run of every event without hooks; want 0", n)
	}
	cfg.Trace = &lockkit.Trace{Acquired: func(lockkit.AcquiredInfo) {}}
	if n := testing.AllocsPerRun(100, func() { traceEvents(ctx, NewTracer(&cfg, false, false), h) }); n == 0 {
		t.Fatal("no allocation with hooks set: the measure does not see the events")
	}
}

// BenchmarkTracer_without_hooks measures the events of a lock with no
// Trace: a check each, no allocation.
func BenchmarkTracer_without_hooks(b *testing.B) {
	_, rc := redistest.Mini(b)
	cfg := Config{Client: redistest.Lockkit(b, rc), Name: "n"}
	tr := NewTracer(&cfg, false, false)
	h := NewHold(1)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		traceEvents(ctx, tr, h)
	}
}

// BenchmarkTracer_with_hooks is the same with every hook set.
func BenchmarkTracer_with_hooks(b *testing.B) {
	_, rc := redistest.Mini(b)
	cfg := Config{Client: redistest.Lockkit(b, rc), Name: "n"}
	noop := func(any) {}
	cfg.Trace = &lockkit.Trace{
		WaitStart: func(i lockkit.WaitStartInfo) { noop(i) },
		WaitDone:  func(i lockkit.WaitDoneInfo) { noop(i) },
		Acquired:  func(i lockkit.AcquiredInfo) { noop(i) },
		Released:  func(i lockkit.ReleasedInfo) { noop(i) },
		Lost:      func(i lockkit.LostInfo) { noop(i) },
	}
	tr := NewTracer(&cfg, false, false)
	h := NewHold(1)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		traceEvents(ctx, tr, h)
	}
}
