package lockkit_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/watchdog"
)

// TestWithMaxHold_reports_the_loss_before_another_owner_takes_the_lock
// checks WithMaxHold's promise about a holder that never releases: its
// lost signal closes, with an error matching ErrLost and
// watchdog.ErrMaxHold, no sooner than d after the lock was taken and
// before the lock could be anyone else's; and the lock frees itself at
// most one watchdog timeout after d, so that an owner waiting on another
// Client takes it then.
func TestWithMaxHold_reports_the_loss_before_another_owner_takes_the_lock(t *testing.T) {
	srv := redistest.StartServer(t)
	const wd, maxHold = time.Second, 1500 * time.Millisecond
	lostAt := make(chan time.Time, 1)
	trace := &lockkit.Trace{Lost: func(lockkit.LostInfo) { lostAt <- time.Now() }}
	name := redistest.Unique(t)
	m := reentrant.New(redistest.Lockkit(t, srv.Client(t)), name,
		lockkit.WithWatchdogTimeout(wd), lockkit.WithMaxHold(maxHold), lockkit.WithTrace(trace))
	ctx := redistest.Ctx(t, redistest.Hang)
	start := time.Now()
	redistest.MustLock(t, m)
	held := m.Context(ctx)
	other := reentrant.New(redistest.Lockkit(t, srv.Client(t)), name)
	got := redistest.LockAsync(ctx, other)
	if err := redistest.Receive(t, got, redistest.Hang, "the other owner's Lock"); err != nil {
		t.Fatal(err)
	}
	takenAt := time.Now()
	lost := redistest.Receive(t, lostAt, 10*time.Second, "Trace.Lost")
	if !redistest.Closed(m.Lost()) {
		t.Fatal("the other owner holds the lock, but the holder's lost signal is open")
	}
	if !lost.Before(takenAt) {
		t.Errorf("the loss was reported %v after the other owner took the lock; want it reported first", lost.Sub(takenAt))
	}
	if d := lost.Sub(start); d < maxHold {
		t.Errorf("the loss was reported %v after the Lock, before WithMaxHold's %v", d, maxHold)
	}
	// The last renewal was sent before maxHold, so the lease ends by
	// maxHold + wd; the slack covers the wake-up and the round trips.
	if d, bound := takenAt.Sub(start), maxHold+wd+500*time.Millisecond; d > bound {
		t.Errorf("the other owner took the lock %v after the Lock, want at most %v", d, bound)
	}
	redistest.WantErr(t, context.Cause(held), lockkit.ErrLost, watchdog.ErrMaxHold)
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrLost, watchdog.ErrMaxHold)
	redistest.MustUnlock(t, other)
}
