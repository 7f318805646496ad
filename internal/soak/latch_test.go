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
	r := e.beginLatch(t, i)
	end := f.start(t, e)
	if end != nil && !f.oneSided {
		end()
	}
	e.countDown(t, r)
	if end != nil && f.oneSided {
		end()
	}
	e.finishLatch(t, r)
}

// latchWaits is what a round of a latch has active across its fault: the
// latch's name and the Awaits of both sides.
type latchWaits struct {
	name   string
	aw, bw <-chan error
}

// beginLatch starts an Await of side a and one of side b for a fresh
// latch of one count, for round i, and returns once both wait.
func (e *env) beginLatch(t *testing.T, i int) latchWaits {
	t.Helper()
	r := latchWaits{name: fmt.Sprintf("%s%d", e.Name, i)}
	ctx := redistest.Ctx(t, redistest.Hang)
	r.aw = awaitAsync(ctx, latch.New(e.A.Nodes[0], r.name, 1))
	r.bw = awaitAsync(ctx, latch.New(e.B.Nodes[0], r.name, 1))
	redistest.Eventually(t, callBound, "both Awaits to wait", func() bool {
		return e.A.Nodes[0].Notifier().Channels() > 0 && e.B.Nodes[0].Notifier().Channels() > 0
	})
	return r
}

// countDown counts the latch of r down from side b, and waits for side
// b's Await to return nil.
func (e *env) countDown(t *testing.T, r latchWaits) {
	t.Helper()
	if _, err := latch.New(e.B.Nodes[0], r.name, 1).CountDown(redistest.Ctx(t, callBound)); err != nil {
		t.Fatalf("CountDown: %v", err)
	}
	if err := redistest.Receive(t, r.bw, callBound, "side b's Await to return"); err != nil {
		t.Fatalf("Await of side b: %v", err)
	}
}

// finishLatch waits for side a's Await of r to return nil, once the
// latch was counted down and the fault is over.
func (e *env) finishLatch(t *testing.T, r latchWaits) {
	t.Helper()
	e.oneConnEach(t)
	if err := redistest.Receive(t, r.aw, callBound, "side a's Await to return"); err != nil {
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
