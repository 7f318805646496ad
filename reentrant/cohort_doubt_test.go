package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_an_Unlock_in_doubt_never_called_again_keeps_nobody_out:
// in cohort mode, the holder's last Unlock reaches Redis but its reply is
// lost, and the holder never calls Unlock again (a deferred Unlock whose
// error is dropped). The cohort settles that Unlock itself: another Mutex
// of the process then gets the lock, the holder's hold ends as
// released (its Context ends with ErrNotHeld, its lost signal stays
// open), and the holder's next Unlock reports how the one in doubt was
// settled (nil: it released), then ErrNotHeld.
func TestLocalHandoff_an_Unlock_in_doubt_never_called_again_keeps_nobody_out(t *testing.T) {
	drop := &redistest.DropReply{Match: redistest.IsScript}
	_, c, lc, name := hookedProcess(t, drop)
	holder, waiter := heldInCohort(t, lc, name)
	ctx := redistest.Ctx(t, redistest.Hang)
	held, lost := holder.Context(ctx), holder.Lost()
	drop.Arm()
	if err := holder.Unlock(ctx); err == nil || drop.Armed() {
		t.Fatalf("Unlock whose reply was dropped = %v (sent: %v); want an error", err, !drop.Armed())
	}
	got := redistest.LockAsync(ctx, waiter)
	if err := redistest.Receive(t, got, 10*time.Second, "the waiter's Lock, the holder's Unlock in doubt never called again"); err != nil {
		t.Fatal(err)
	}
	redistest.WantHoldCount(t, waiter, 1)
	redistest.WantErr(t, context.Cause(held), lockkit.ErrNotHeld)
	if redistest.Closed(lost) {
		t.Error("the holder's lost signal closed; want its hold ended as released")
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Errorf("the holder's Unlock after the one in doubt was settled = %v; want nil (it released)", err)
	}
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.MustUnlock(t, waiter)
	redistest.AssertClean(t, c, name)
}

// TestLocalHandoff_lock_after_an_unlock_in_doubt_follows_the_fresh_hold:
// the holder's last Unlock reached Redis but its reply was lost, so the
// lock is free and the Unlock in doubt; a Lock of the same Mutex then
// takes a fresh hold in Redis. The Mutex reports that hold: its larger
// token, and its loss (another owner force-unlocks it) on Lost and in
// Unlock, after the Unlock that settles the one in doubt.
func TestLocalHandoff_lock_after_an_unlock_in_doubt_follows_the_fresh_hold(t *testing.T) {
	drop := &redistest.DropReply{Match: redistest.IsScript}
	_, c, lc, name := hookedProcess(t, drop)
	m := reentrant.New(lc, name, handoff)
	redistest.MustLock(t, m)
	first := m.Token()
	drop.Arm()
	ctx := redistest.Ctx(t, 10*time.Second)
	if err := m.Unlock(ctx); err == nil || drop.Armed() {
		t.Fatalf("Unlock whose reply was dropped = %v (sent: %v); want an error", err, !drop.Armed())
	}
	redistest.MustLock(t, m)
	if m.Token() <= first {
		t.Errorf("token of the fresh hold %d, want more than the first hold's %d", m.Token(), first)
	}
	redistest.MustUnlock(t, m) // settles the Unlock in doubt; m still holds
	redistest.WantHoldCount(t, m, 1)
	if ok, err := reentrant.New(redistest.Lockkit(t, c), name).ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	lc.Watchdog().Check()
	redistest.Receive(t, m.Lost(), 10*time.Second, "m's lost signal once its fresh hold was force-unlocked")
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrLost)
}

// TestLocalHandoff_an_Unlock_in_doubt_that_finds_the_hold_gone_reports_it_lost:
// in cohort mode, the holder's last Unlock gets no answer (the server seems
// stalled), and the hold vanishes meanwhile (a force-unlock by another
// process). Once the server answers again, the cohort settles the Unlock
// in doubt without it being called again: the holder is told that its
// hold is lost, its next Unlock returns ErrLost, and the Mutex of the
// process that waits in memory meanwhile gets the lock.
func TestLocalHandoff_an_Unlock_in_doubt_that_finds_the_hold_gone_reports_it_lost(t *testing.T) {
	stall := &redistest.Silence{Match: redistest.IsScript}
	srv, c, lc, name := hookedProcess(t, stall)
	holder, waiter := heldInCohort(t, lc, name)
	ctx := redistest.Ctx(t, redistest.Hang)
	unlockUnanswered(ctx, t, holder, stall)
	got := lockLocal(ctx, t, waiter, 1)
	goneWhileInDoubt(ctx, t, srv, name, holder, stall)
	if err := redistest.Receive(t, got, 10*time.Second, "the waiter's Lock"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, waiter)
	redistest.AssertClean(t, c, name)
}

// TestLocalHandoff_Close_while_an_Unlock_in_doubt_is_settled: in cohort
// mode, the holder's last Unlock fails (the server is gone), and the
// cohort keeps trying it in the background. An Unlock called again waits
// for one try, not for the server, and fails as it does. Close does not
// wait for the server either: it returns, the holder is told its hold is
// lost, its next Unlock returns ErrLost and ErrClosed, and the one after
// ErrClosed, as without cohort mode.
func TestLocalHandoff_Close_while_an_Unlock_in_doubt_is_settled(t *testing.T) {
	lc, holder := inDoubtOnAStoppedServer(t, handoff)
	ctx := redistest.Ctx(t, redistest.Hang)
	again := make(chan error, 1)
	go func() { again <- holder.Unlock(ctx) }()
	if err := redistest.Receive(t, again, 10*time.Second, "the Unlock called again, the server still stopped"); err == nil {
		t.Fatal("Unlock called again against a stopped server = nil; want an error")
	}
	closeInDoubt(t, lc, holder)
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrClosed)
}

// TestLocalHandoff_no_reentry_in_memory_on_a_lost_hold: in cohort mode, the
// process's hold is found lost, and the holder re-enters or unlocks in
// memory before its own view of the hold has heard of the loss (it does,
// a moment later, on a goroutine of its own). The re-entry does not count
// on the lost hold: the holder gives it back and takes a fresh one, with
// a larger token; an Unlock in memory returns ErrLost.
func TestLocalHandoff_no_reentry_in_memory_on_a_lost_hold(t *testing.T) {
	_, lc, name := oneProcess(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	for _, tc := range []struct {
		name string
		call func(m *reentrant.Mutex, first int64)
	}{
		{"TryLock", func(m *reentrant.Mutex, first int64) {
			if ok, err := m.TryLock(ctx); !ok || err != nil {
				t.Fatalf("TryLock on a lost hold = %v, %v; want a fresh hold", ok, err)
			}
			if m.Token() <= first {
				t.Errorf("TryLock on a lost hold re-entered it (token %d, the lost hold's %d)", m.Token(), first)
			}
			redistest.WantHoldCount(t, m, 1)
			redistest.MustUnlock(t, m)
		}},
		{"Lock", func(m *reentrant.Mutex, first int64) {
			redistest.MustLock(t, m)
			if m.Token() <= first {
				t.Errorf("Lock on a lost hold re-entered it (token %d, the lost hold's %d)", m.Token(), first)
			}
			redistest.WantHoldCount(t, m, 1)
			redistest.MustUnlock(t, m)
		}},
		{"Unlock", func(m *reentrant.Mutex, _ int64) {
			redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrLost)
			redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := reentrant.New(lc, name, handoff)
			redistest.MustLock(t, m)
			redistest.MustLock(t, m) // held twice: an Unlock counts in memory
			first := m.Token()
			reentrant.LoseUnfollowed(m)
			tc.call(m, first)
		})
	}
}
