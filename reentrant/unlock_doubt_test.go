package reentrant_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestUnlock_in_doubt_that_finds_the_hold_gone_reports_it_lost: the
// holder's last Unlock gets no answer (the server seems stalled), and the
// hold vanishes meanwhile (a force-unlock by another process). Once the
// server answers again, the lock settles the Unlock in doubt without it
// being called again: the holder is told that its hold is lost, and its
// next Unlock returns ErrLost.
func TestUnlock_in_doubt_that_finds_the_hold_gone_reports_it_lost(t *testing.T) {
	stall := &redistest.Silence{Match: redistest.IsScript}
	srv, c, lc, name := hookedProcess(t, stall)
	holder := reentrant.New(lc, name)
	redistest.MustLock(t, holder)
	ctx := redistest.Ctx(t, redistest.Hang)
	unlockUnanswered(ctx, t, holder, stall)
	goneWhileInDoubt(ctx, t, srv, name, holder, stall)
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.AssertClean(t, c, name)
}

// TestUnlock_in_doubt_settled_in_the_background_ends_with_Close: the
// holder's last Unlock fails (the server is gone), and the lock keeps
// trying it in the background. Close does not wait for the server: it
// returns, the holder is told its hold is lost, its next Unlock returns
// ErrLost and ErrClosed (and the one after, ErrClosed), and no goroutine
// is left behind.
func TestUnlock_in_doubt_settled_in_the_background_ends_with_Close(t *testing.T) {
	before := goleak.IgnoreCurrent()
	lc, holder := inDoubtOnAStoppedServer(t)
	closeInDoubt(t, lc, holder)
	redistest.WantErr(t, holder.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrClosed)
	redistest.Eventually(t, 10*time.Second, "no goroutine left", func() bool {
		return goleak.Find(before) == nil
	})
}

// unlockUnanswered turns stall on, so that the server seems to stop
// answering, and checks that holder's Unlock, called with a deadline
// 300 ms after ctx's start, fails: its outcome is in doubt.
func unlockUnanswered(ctx context.Context, t *testing.T, holder *reentrant.Mutex, stall *redistest.Silence) {
	t.Helper()
	stall.On()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := holder.Unlock(short); err == nil {
		t.Fatal("Unlock against a server that does not answer = nil; want an error")
	}
}

// goneWhileInDoubt force-unlocks name through a Client of srv of its own
// while holder's Unlock is in doubt (see unlockUnanswered), and then turns
// stall off: holder must be told that its hold is lost, within 10 s, and
// its next Unlock must return ErrLost.
func goneWhileInDoubt(ctx context.Context, t *testing.T, srv *redistest.Server, name string, holder *reentrant.Mutex, stall *redistest.Silence) {
	t.Helper()
	force := reentrant.New(redistest.Lockkit(t, srv.Client(t)), name)
	if ok, err := force.ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	stall.Off()
	redistest.Receive(t, holder.Lost(), 10*time.Second, "the holder's lost signal")
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
}

// inDoubtOnAStoppedServer returns a Client of a server, and a Mutex of it
// made with opts whose Unlock of its one hold failed because the server
// was stopped: the Unlock is in doubt, and the server stays stopped.
func inDoubtOnAStoppedServer(t *testing.T, opts ...lockkit.Option) (*lockkit.Client, *reentrant.Mutex) {
	t.Helper()
	srv := redistest.StartServer(t)
	lc := redistest.Lockkit(t, srv.Client(t))
	holder := reentrant.New(lc, redistest.Unique(t), opts...)
	redistest.MustLock(t, holder)
	srv.Stop(t)
	if err := holder.Unlock(redistest.Ctx(t, redistest.Hang)); err == nil {
		t.Fatal("Unlock against a stopped server = nil; want an error")
	}
	return lc, holder
}

// closeInDoubt closes lc while holder's Unlock is in doubt and checks that
// Close returns without waiting for the server, that holder is told its
// hold is lost, and that its next Unlock returns ErrLost and ErrClosed.
func closeInDoubt(t *testing.T, lc *lockkit.Client, holder *reentrant.Mutex) {
	t.Helper()
	lost := holder.Lost()
	closed := make(chan error, 1)
	go func() { closed <- lc.Close() }()
	if err := redistest.Receive(t, closed, 10*time.Second, "Close"); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, lost, 10*time.Second, "the holder's lost signal")
	redistest.WantErr(t, holder.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost, lockkit.ErrClosed)
}
