package rwlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/watchdog"
)

// TestRLock_with_max_hold_is_renewed_until_then_lost checks WithMaxHold on
// the read side (the conformance suite checks the write side): a read hold
// never released is renewed past several leases until its maximum hold
// time, then RLost closes, RContext ends with ErrLost and
// watchdog.ErrMaxHold, the lock frees itself for a writer, and RUnlock
// reports the loss.
func TestRLock_with_max_hold_is_renewed_until_then_lost(t *testing.T) {
	_, lc, name := redistest.OnServer(t)
	const lease, maxHold = time.Second, 2500 * time.Millisecond
	r := rwlock.New(lc, name, lockkit.WithWatchdogTimeout(lease), lockkit.WithMaxHold(maxHold))
	start := time.Now()
	mustRLock(t, r)
	held := r.RContext(context.Background())
	redistest.Receive(t, r.RLost(), waitTimeout, "RLost at the maximum hold time")
	if d := time.Since(start); d < maxHold {
		t.Fatalf("read hold lost after %v, before its maximum hold time %v", d, maxHold)
	}
	redistest.Receive(t, held.Done(), waitTimeout, "the read context to end")
	redistest.WantErr(t, context.Cause(held), lockkit.ErrLost, watchdog.ErrMaxHold)
	wantWriterGets(t, lc, name)
	redistest.WantErr(t, r.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrLost, watchdog.ErrMaxHold)
	redistest.WantErr(t, r.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
}
