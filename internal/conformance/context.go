package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// contexter is a lock whose holds have a context (Context).
type contexter interface {
	Context(parent context.Context) context.Context
}

// wantCause waits for c to end and checks its cause.
func wantCause(t *testing.T, c context.Context, want error, what string) {
	t.Helper()
	redistest.Receive(t, c.Done(), waitTimeout, what)
	redistest.WantErr(t, context.Cause(c), want)
}

// testContext checks that a hold's context ends with the hold: released
// (cause ErrNotHeld), lost (cause ErrLost, also when asked for once lost),
// or with its parent.
func testContext(t *testing.T, e *env) {
	name := redistest.Unique(t)
	const lease = 300 * time.Millisecond
	l := e.lock(name, lockkit.WithWatchdogTimeout(lease))
	m, ok := l.(contexter)
	if !ok {
		return // a multi-lock: its members run this
	}
	wantCause(t, m.Context(context.Background()), lockkit.ErrNotHeld, "the context of no hold")

	redistest.MustLock(t, l)
	parent, cancel := context.WithCancel(context.Background())
	byParent := m.Context(parent)
	var background context.Context // nil counts as context.Background()
	released := m.Context(background)
	select {
	case <-released.Done():
		t.Fatalf("the context of a live hold ended: %v", context.Cause(released))
	default:
	}
	cancel()
	redistest.Receive(t, byParent.Done(), waitTimeout, "the context to end with its parent")
	redistest.MustUnlock(t, l)
	if released.Err() == nil {
		t.Fatal("the context of a released hold had not ended when Unlock returned")
	}
	wantCause(t, released, lockkit.ErrNotHeld, "the context of a released hold")

	redistest.MustLock(t, l)
	lost := m.Context(context.Background())
	deleteKeys(t, e.rc, name)
	wantCause(t, lost, lockkit.ErrLost, "the context of a lost hold")
	// Asked for once the hold is found lost and before its Unlock, the
	// context ends with that loss, as the lost channel says.
	if lo, ok := l.(loser); ok {
		redistest.Receive(t, lo.Lost(), waitTimeout, "the hold to be reported lost")
	}
	wantCause(t, m.Context(context.Background()), lockkit.ErrLost, "the context of a hold lost before it was asked for")
	redistest.WantErr(t, l.Unlock(ctx(t)), lockkit.ErrLost)
	wantCause(t, m.Context(context.Background()), lockkit.ErrNotHeld, "the context once the lost hold is unlocked")
}
