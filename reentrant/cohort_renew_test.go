package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_watchdog_keeps_the_hold_alive_across_a_hand_over: the
// one Redis hold of the process, handed over in memory, is renewed by the
// watchdog for its new local holder: another process waiting for four
// leases does not get it, the holder is not told of a loss, the lease in
// Redis is live when it unlocks, and the other process gets it then.
func TestLocalHandoff_watchdog_keeps_the_hold_alive_across_a_hand_over(t *testing.T) {
	c, lc, lcOther, name := twoProcesses(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	const lease = 300 * time.Millisecond
	opts := []lockkit.Option{handoff, lockkit.WithWatchdogTimeout(lease)}
	first, second := reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...)
	redistest.MustLock(t, first)
	got := lockLocal(ctx, t, second, 1)
	redistest.MustUnlock(t, first) // hands the hold over in memory
	if err := redistest.Receive(t, got, 10*time.Second, "the hand-over"); err != nil {
		t.Fatal(err)
	}
	other := reentrant.New(lcOther, name)
	wait, cancel := context.WithTimeout(ctx, 4*lease)
	defer cancel()
	redistest.WantErr(t, other.Lock(wait), lockkit.ErrNotObtained, context.DeadlineExceeded)
	if redistest.Closed(second.Lost()) {
		t.Fatal("the hold handed over was reported lost")
	}
	if d, err := second.TTL(ctx); err != nil || d <= 0 {
		t.Fatalf("TTL = %v, %v; want a live lease", d, err)
	}
	redistest.WantHoldCount(t, second, 1)
	redistest.MustUnlock(t, second)
	eventuallyTakenBy(t, ctx, other)
	redistest.AssertClean(t, c, name)
}
