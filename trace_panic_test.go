package lockkit_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// panicking returns hooks that all panic.
func panicking() *lockkit.Trace {
	return &lockkit.Trace{
		WaitStart:   func(lockkit.WaitStartInfo) { panic("WaitStart") },
		WaitDone:    func(lockkit.WaitDoneInfo) { panic("WaitDone") },
		Acquired:    func(lockkit.AcquiredInfo) { panic("Acquired") },
		Released:    func(lockkit.ReleasedInfo) { panic("Released") },
		Lost:        func(lockkit.LostInfo) { panic("Lost") },
		Renewed:     func(lockkit.RenewInfo) { panic("Renewed") },
		Reconnected: func(lockkit.ReconnectInfo) { panic("Reconnected") },
	}
}

// TestTrace_a_panicking_hook_is_recovered_and_the_lock_goes_on checks, for
// every kind, that hooks that panic on every event, given to the Client
// and to the lock, break nothing: each call returns what it would without
// them (a wait its ctx ends, a hold taken, released, re-taken, lost on
// the watchdog's goroutine and unlocked), the process survives, and the
// hooks added after them still get every event.
func TestTrace_a_panicking_hook_is_recovered_and_the_lock_goes_on(t *testing.T) {
	eachTraceKind(t, func(t *testing.T, k traceKind) {
		srv := redistest.StartServer(t)
		lc := redistest.Lockkit(t, srv.Client(t), lockkit.WithTrace(panicking()))
		var log traceLog
		lc.AddTrace(log.trace())
		name := redistest.Unique(t)
		m := k.new(lc, name, lockkit.WithTrace(panicking()), lockkit.WithWatchdogTimeout(300*time.Millisecond))
		blocker := k.block(lc, name)
		redistest.MustLock(t, blocker)
		redistest.WantErr(t, m.Lock(redistest.Ctx(t, 300*time.Millisecond)), lockkit.ErrNotObtained, context.DeadlineExceeded)
		redistest.MustUnlock(t, blocker)
		redistest.MustLock(t, m)
		redistest.MustUnlock(t, m)
		redistest.MustLock(t, m)
		vanish(t, srv, m, &log) // Lost reaches the hooks after the panicking ones
		ctx := redistest.Ctx(t, redistest.Hang)
		redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrLost)
		redistest.MustLock(t, m)
		redistest.MustUnlock(t, m)

		want := []string{
			"Acquired", "WaitStart", "WaitDone", "Released", // the blocker, and m's wait
			"Acquired", "Released", "Acquired", "Lost", "Released", "Acquired", "Released",
		}
		if got := log.hooks(); !slices.Equal(got, want) {
			t.Fatalf("events after the panicking hooks: %v; want %v", got, want)
		}
	})
}

// TestTrace_a_panicking_Renewed_or_Reconnected_hook_is_recovered checks
// that the Client's own events, reported on its goroutines, survive hooks
// that panic: the watchdog goes on renewing (the hooks after them get
// each round trip), a killed pub/sub connection is replaced (they get
// Reconnected, and a waiter is still woken).
func TestTrace_a_panicking_Renewed_or_Reconnected_hook_is_recovered(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := srv.Client(t)
	p := panicking()
	lc := redistest.Lockkit(t, srv.Client(t), lockkit.WithTrace(&lockkit.Trace{Renewed: p.Renewed, Reconnected: p.Reconnected}))
	var after counts
	lc.AddTrace(after.trace())
	name := redistest.Unique(t)
	holder := reentrant.New(lc, name, lockkit.WithWatchdogTimeout(300*time.Millisecond))
	redistest.MustLock(t, holder)
	ctx := redistest.Ctx(t, redistest.Hang)
	got := redistest.LockAsync(ctx, reentrant.New(lc, name))
	redistest.Eventually(t, redistest.Hang, "the pub/sub connection to be killed", func() bool {
		n, err := admin.ClientKillByFilter(ctx, "TYPE", "pubsub").Result()
		return err == nil && n > 0
	})
	redistest.Eventually(t, redistest.Hang, "Reconnected and two Renewed after the panicking hooks", func() bool {
		return after.reconnected.Load() > 0 && after.renewed.Load() > 1
	})
	redistest.MustUnlock(t, holder)
	if err := redistest.Receive(t, got, redistest.Hang, "the waiter's Lock"); err != nil {
		t.Fatal(err)
	}
}
