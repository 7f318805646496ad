package lockkit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
)

// TestClose_every_later_call_returns_ErrClosed_and_releases_still_free
// checks Close's promise to every kind made from the Client: once it is
// closed, every call on its locks (queries, acquires, ForceUnlock, the
// read side of an rwlock, a semaphore, a latch, an election) returns an
// error matching ErrClosed and sends nothing, and the releases of what
// was held (Unlock, RUnlock, a permit's Release, Resign) still free it in
// Redis, while reporting the loss with ErrLost and ErrClosed.
func TestClose_every_later_call_returns_ErrClosed_and_releases_still_free(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	lc := lockkit.New(rc)
	ctx := redistest.Ctx(t, 30*time.Second)
	name := redistest.Unique(t)
	m := reentrant.New(lc, name)
	redistest.MustLock(t, m)
	rw := rwlock.New(lc, name+"-rw")
	if err := rw.RLock(ctx); err != nil {
		t.Fatal(err)
	}
	sem := semaphore.New(lc, name+"-sem", 2)
	permits, err := sem.Acquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	el := election.New(lc, name+"-el")
	leadership, err := el.Campaign(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	lt := latch.New(lc, name+"-latch", 2)
	if _, err := lt.CountDown(ctx); err != nil {
		t.Fatal(err)
	}

	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	sent := redistest.CountCommands(rc)
	for what, call := range map[string]func(context.Context) error{
		"Lock":              m.Lock,
		"TryLock":           func(c context.Context) error { _, err := m.TryLock(c); return err },
		"HoldCount":         func(c context.Context) error { _, err := m.HoldCount(c); return err },
		"IsLocked":          func(c context.Context) error { _, err := m.IsLocked(c); return err },
		"TTL":               func(c context.Context) error { _, err := m.TTL(c); return err },
		"ForceUnlock":       func(c context.Context) error { _, err := m.ForceUnlock(c); return err },
		"Unlock never held": reentrant.New(lc, name).Unlock,
		"RLock":             rwlock.New(lc, rw.Name()).RLock,
		"TryRLock":          func(c context.Context) error { _, err := rw.TryRLock(c); return err },
		"rwlock State":      func(c context.Context) error { _, err := rw.State(c); return err },
		"Acquire":           func(c context.Context) error { _, err := sem.Acquire(c, 1); return err },
		"TryAcquire":        func(c context.Context) error { _, err := sem.TryAcquire(c, 1); return err },
		"Available":         func(c context.Context) error { _, err := sem.Available(c); return err },
		"SetPermits":        func(c context.Context) error { return sem.SetPermits(c, 3) },
		"Campaign":          func(c context.Context) error { _, err := el.Campaign(c, "b"); return err },
		"Leader":            func(c context.Context) error { _, err := el.Leader(c); return err },
		"Observe":           func(c context.Context) error { _, err := el.Observe(c); return err },
		"CountDown":         func(c context.Context) error { _, err := lt.CountDown(c); return err },
		"Count":             func(c context.Context) error { _, err := lt.Count(c); return err },
		"Await":             lt.Await,
	} {
		if err := call(ctx); !errors.Is(err, lockkit.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", what, err)
		}
	}
	if n := sent.Total(); n != 0 {
		t.Errorf("calls refused with ErrClosed sent %d commands, want 0", n)
	}

	// The releases still free what was held, and report the loss.
	admin := srv.Client(t)
	for _, tc := range []struct {
		what, name string
		release    func(context.Context) error
	}{
		{"Unlock", name, m.Unlock},
		{"RUnlock", rw.Name(), rw.RUnlock},
		{"Release", sem.Name(), permits.Release},
		{"Resign", el.Name(), leadership.Resign},
	} {
		key := "lockkit:{" + tc.name + "}"
		if n, err := admin.Exists(ctx, key).Result(); n != 1 || err != nil {
			t.Fatalf("before %s: EXISTS %s = %d, %v; want the hold still in Redis", tc.what, key, n, err)
		}
		redistest.WantErr(t, tc.release(ctx), lockkit.ErrLost, lockkit.ErrClosed)
		redistest.AssertClean(t, admin, tc.name)
	}
}
