package soak_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// latchRound runs round i of a latch across fault f: an Await of side a
// and one of side b wait for a fresh latch of one count, f is injected,
// side b counts the latch down, and both Awaits must return nil. A fault
// that leaves side b alone (a cut of side a) is ended only once side b's
// Await returned.
func (e *env) latchRound(t *testing.T, f fault, i int) {
	name := fmt.Sprintf("%s%d", e.name, i)
	ctx := redistest.Ctx(t, redistest.Hang)
	aw := awaitAsync(ctx, latch.New(e.a.nodes[0], name, 1))
	bw := awaitAsync(ctx, latch.New(e.b.nodes[0], name, 1))
	redistest.Eventually(t, callBound, "both Awaits to wait", func() bool {
		return e.a.nodes[0].Notifier().Channels() == 1 && e.b.nodes[0].Notifier().Channels() == 1
	})
	end := f.start(t, e)
	if end != nil && !f.oneSided {
		end()
	}
	if _, err := latch.New(e.b.nodes[0], name, 1).CountDown(redistest.Ctx(t, callBound)); err != nil {
		t.Fatalf("CountDown: %v", err)
	}
	if err := redistest.Receive(t, bw, callBound, "side b's Await to return"); err != nil {
		t.Fatalf("Await of side b: %v", err)
	}
	if end != nil && f.oneSided {
		end()
	}
	e.oneConnEach(t)
	if err := redistest.Receive(t, aw, callBound, "side a's Await to return"); err != nil {
		t.Fatalf("Await of side a: %v", err)
	}
}

// awaitAsync starts l.Await(ctx) and returns the channel its error comes
// on.
func awaitAsync(ctx context.Context, l *latch.Latch) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- l.Await(ctx) }()
	return ch
}
