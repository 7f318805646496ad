package semaphore_test

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/semaphore"
)

// TestErrWrongKind_every_call_on_another_kinds_name_and_the_other_way_round
// checks that a name is one kind: while a reentrant lock holds a name,
// every call of a semaphore of that name returns ErrWrongKind and the lock
// stays held; while a semaphore holds a name, a lock and a latch of that
// name are refused with ErrWrongKind and the hold stays.
func TestErrWrongKind_every_call_on_another_kinds_name_and_the_other_way_round(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		c := redistest.Lockkit(t, rc)
		ctx := redistest.Ctx(t, redistest.Hang)
		m := reentrant.New(c, name)
		redistest.MustLock(t, m)
		s := semaphore.New(c, name, 2)
		for _, call := range []struct {
			name string
			run  func() error
		}{
			{"Acquire", func() error { _, err := s.Acquire(ctx, 1); return err }},
			{"TryAcquire", func() error { _, err := s.TryAcquire(ctx, 1); return err }},
			{"SetPermits", func() error { return s.SetPermits(ctx, 3) }},
			{"Available", func() error { _, err := s.Available(ctx); return err }},
			{"Holders", func() error { _, err := s.Holders(ctx); return err }},
			{"Permits", func() error { _, err := s.Permits(ctx); return err }},
		} {
			if err := call.run(); !errors.Is(err, lockkit.ErrWrongKind) {
				t.Errorf("%s of a lock's name = %v, want ErrWrongKind", call.name, err)
			}
		}
		redistest.WantHoldCount(t, m, 1)
		redistest.MustUnlock(t, m)

		sem := redistest.Unique(t)
		s = semaphore.New(c, sem, 2)
		p := mustAcquire(t, s, 1)
		if ok, err := reentrant.New(c, sem).TryLock(ctx); ok || !errors.Is(err, lockkit.ErrWrongKind) {
			t.Errorf("TryLock of a semaphore's name = %v, %v; want ErrWrongKind", ok, err)
		}
		if _, err := latch.New(c, sem, 1).CountDown(ctx); !errors.Is(err, lockkit.ErrWrongKind) {
			t.Errorf("CountDown of a semaphore's name = %v, want ErrWrongKind", err)
		}
		if err := latch.New(c, sem, 1).Await(ctx); !errors.Is(err, lockkit.ErrWrongKind) {
			t.Errorf("Await of a semaphore's name = %v, want ErrWrongKind", err)
		}
		wantAvailable(t, s, 1)
		mustRelease(t, p)
	})
}
