package lockkit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/semaphore"
)

// TestErrWrongKind_a_locks_name_is_no_election_latch_or_semaphore checks
// that one name is one kind beyond the locks: while a reentrant lock holds
// a name, every call of an election, a latch or a semaphore of that name
// returns ErrWrongKind (an election's Observe reports no leader) and the
// lock stays held. The other way round, an open latch's name refuses a
// lock.
func TestErrWrongKind_a_locks_name_is_no_election_latch_or_semaphore(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc)
	ctx := redistest.Ctx(t, redistest.Hang)
	name := redistest.Unique(t)
	m := reentrant.New(c, name)
	redistest.MustLock(t, m)

	for _, call := range []struct {
		name string
		run  func() error
	}{
		{"election Campaign", func() error { _, err := election.New(c, name).Campaign(ctx, "a"); return err }},
		{"election Leader", func() error { _, err := election.New(c, name).Leader(ctx); return err }},
		{"election Observe", func() error {
			obs, err := election.New(c, name).Observe(ctx)
			if err != nil {
				return fmt.Errorf("Observe: %w", err)
			}
			if l, ok := <-obs; ok {
				return fmt.Errorf("Observe reported %+v", l)
			}
			return lockkit.ErrWrongKind // nothing reported, as for another kind's name
		}},
		{"latch CountDown", func() error { _, err := latch.New(c, name, 1).CountDown(ctx); return err }},
		{"latch Count", func() error { _, err := latch.New(c, name, 1).Count(ctx); return err }},
		{"latch Await", func() error { return latch.New(c, name, 1).Await(ctx) }},
		{"semaphore Acquire", func() error { _, err := semaphore.New(c, name, 2).Acquire(ctx, 1); return err }},
		{"semaphore TryAcquire", func() error { _, err := semaphore.New(c, name, 2).TryAcquire(ctx, 1); return err }},
	} {
		if err := call.run(); !errors.Is(err, lockkit.ErrWrongKind) {
			t.Errorf("%s of a lock's name = %v, want ErrWrongKind", call.name, err)
		}
	}
	redistest.WantHoldCount(t, m, 1)
	redistest.MustUnlock(t, m)

	open := redistest.Unique(t)
	if n, err := latch.New(c, open, 1).CountDown(ctx); n != 0 || err != nil {
		t.Fatalf("CountDown = %d, %v; want 0", n, err)
	}
	if ok, err := reentrant.New(c, open).TryLock(context.Background()); ok || !errors.Is(err, lockkit.ErrWrongKind) {
		t.Fatalf("TryLock of an open latch's name = %v, %v; want ErrWrongKind", ok, err)
	}
}
