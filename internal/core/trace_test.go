package core

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// traceEvents reports one of each lock event through tr.
func traceEvents(ctx context.Context, tr *Tracer, h *Hold) {
	wctx, done := tr.waitStart(ctx, time.Now())
	tr.Acquired(1, false, Contended(wctx))
	done(nil)
	tr.Released(h, true, nil)
	tr.Lost(h)
}

// tracerOf returns the tracer of a lock with the hooks of tr (nil: none)
// on a Client of miniredis.
func tracerOf(tb testing.TB, tr *lockkit.Trace) *Tracer {
	_, rc := redistest.Mini(tb)
	cfg := Config{Client: redistest.Lockkit(tb, rc), Name: "n"}
	if tr != nil {
		cfg.Trace = tr
	}
	return NewTracer(&cfg, false, false)
}

// allHooks sets every hook of a lock.
func allHooks() *lockkit.Trace {
	noop := func(any) {}
	return &lockkit.Trace{
		WaitStart: func(i lockkit.WaitStartInfo) { noop(i) },
		WaitDone:  func(i lockkit.WaitDoneInfo) { noop(i) },
		Acquired:  func(i lockkit.AcquiredInfo) { noop(i) },
		Released:  func(i lockkit.ReleasedInfo) { noop(i) },
		Lost:      func(i lockkit.LostInfo) { noop(i) },
	}
}

// TestTracer_without_hooks_allocates_nothing: a lock with no Trace pays a
// check per event, and allocates nothing.
func TestTracer_without_hooks_allocates_nothing(t *testing.T) {
	h, ctx := NewHold(1), context.Background()
	without, with := tracerOf(t, nil), tracerOf(t, allHooks())
	if n := testing.AllocsPerRun(100, func() { traceEvents(ctx, without, h) }); n != 0 {
		t.Fatalf("%v allocations per run of every event without hooks; want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { traceEvents(ctx, with, h) }); n == 0 {
		t.Fatal("no allocation with hooks set: the measure does not see the events")
	}
}

// BenchmarkTracer_without_hooks measures the events of a lock with no
// Trace: a check each, no allocation.
func BenchmarkTracer_without_hooks(b *testing.B) { benchTracer(b, tracerOf(b, nil)) }

// BenchmarkTracer_with_hooks is the same with every hook set.
func BenchmarkTracer_with_hooks(b *testing.B) { benchTracer(b, tracerOf(b, allHooks())) }

func benchTracer(b *testing.B, tr *Tracer) {
	h, ctx := NewHold(1), context.Background()
	b.ReportAllocs()
	for b.Loop() {
		traceEvents(ctx, tr, h)
	}
}
