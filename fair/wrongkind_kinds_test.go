package fair_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
)

// TestLock_spin_and_read_write_locks_of_a_fair_locks_name_get_ErrWrongKind
// checks the rest of the promise that a name is one kind: a spin lock and
// a read-write lock (either side) of the name a fair lock holds are
// refused at once, and a fair lock of the name a spin or read-write lock
// holds is refused at once and queues nothing; nothing of the holder's
// lock is changed.
func TestLock_spin_and_read_write_locks_of_a_fair_locks_name_get_ErrWrongKind(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	ctx := func() context.Context { return redistest.Ctx(t, 5*time.Second) }
	// refused checks that each call of another kind's lock on the name
	// fails with ErrWrongKind and leaves the lock hash as it was.
	refused := func(what string, calls map[string]func() error) {
		t.Helper()
		before, err := e.c.HGetAll(ctx(), lockKey(e.name)).Result()
		if err != nil || len(before) == 0 {
			t.Fatalf("%s: lock hash %v, %v; want the holder's", what, before, err)
		}
		for call, f := range calls {
			redistest.WantErr(t, f(), lockkit.ErrWrongKind)
			if after, err := e.c.HGetAll(ctx(), lockKey(e.name)).Result(); err != nil || !maps.Equal(after, before) {
				t.Fatalf("%s, after %s: lock hash = %v, %v; want %v", what, call, after, err, before)
			}
		}
	}
	try := func(f func(context.Context) (bool, error)) func() error {
		return func() error { _, err := f(ctx()); return err }
	}

	f := e.held()
	s := spin.New(e.lc, e.name)
	rw := rwlock.New(e.lc, e.name)
	refused("a fair lock held", map[string]func() error{
		"spin Lock": func() error { return s.Lock(ctx()) }, "spin TryLock": try(s.TryLock), "spin ForceUnlock": try(s.ForceUnlock),
		"rwlock Lock": func() error { return rw.Lock(ctx()) }, "rwlock RLock": func() error { return rw.RLock(ctx()) },
		"rwlock TryLock": try(rw.TryLock), "rwlock TryRLock": try(rw.TryRLock),
	})
	redistest.WantHoldCount(t, f, 1)
	redistest.MustUnlock(t, f)

	g := e.mutex()
	fairCalls := map[string]func() error{
		"fair Lock": func() error { return g.Lock(ctx()) }, "fair TryLock": try(g.TryLock), "fair ForceUnlock": try(g.ForceUnlock),
	}
	redistest.MustLock(t, s)
	refused("a spin lock held", fairCalls)
	e.wantQueue()
	redistest.MustUnlock(t, s)

	for side, lock := range map[string]func(context.Context) error{"a write hold": rw.Lock, "a read hold": rw.RLock} {
		if err := lock(ctx()); err != nil {
			t.Fatal(err)
		}
		refused("rwlock "+side, fairCalls)
		e.wantQueue()
		unlock := rw.Unlock
		if side == "a read hold" {
			unlock = rw.RUnlock
		}
		if err := unlock(ctx()); err != nil {
			t.Fatal(err)
		}
	}
}
