package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestUnlock_in_doubt_of_a_reentered_hold_still_reports_its_loss: the
// holder entered twice, and its network is cut; its first Unlock gets no
// answer and returns at its ctx's deadline, its outcome unknown. It still
// holds the lock (one acquire, or two), so the lease that then lapses
// unrenewed is a loss it is told of: its lost signal has closed by the
// time another owner takes the lock. (The Unlock of a last acquire in
// doubt is another matter: it may have ended the hold, and its retry
// tells.)
func TestUnlock_in_doubt_of_a_reentered_hold_still_reports_its_loss(t *testing.T) {
	srv := redistest.StartServer(t)
	px := redistest.StartProxy(t, srv.Addr())
	opt := lockkit.WithWatchdogTimeout(time.Second)
	ca := redistest.Lockkit(t, px.Client(t), opt)
	cb := redistest.Lockkit(t, srv.Client(t), opt)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	a := reentrant.New(ca, name)
	redistest.MustLock(t, a)
	redistest.MustLock(t, a)
	px.Cut()
	uctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	if err := a.Unlock(uctx); err == nil {
		t.Fatal("Unlock during the cut returned nil")
	}
	cancel()
	b := reentrant.New(cb, name)
	redistest.MustLock(t, b)
	if !redistest.Closed(a.Lost()) {
		t.Fatal("another owner took the lock while the holder, its partial Unlock in doubt, was not told of the loss")
	}
	px.Heal()
	redistest.WantErr(t, a.Unlock(ctx), lockkit.ErrLost)
	redistest.MustUnlock(t, b)
	redistest.AssertClean(t, srv.Client(t), name)
}
