package multilock_test

import (
	"sync"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_one_value_used_by_many_goroutines_stays_in_step: goroutines
// that Lock and Unlock one RedLock value at once share its hold (each Lock
// re-enters it or takes it anew), so every call succeeds, and once the
// last Unlock returned the value holds nothing, the nodes keep nothing and
// another owner takes the lock at once.
func TestRedLock_one_value_used_by_many_goroutines_stays_in_step(t *testing.T) {
	clients, lcs, name := threeNodes(t)
	r := multilock.NewRedLock(lcs, name)
	const goroutines, rounds = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*rounds)
	for range goroutines {
		wg.Go(func() {
			for range rounds {
				ctx := redistest.Ctx(t, redistest.Hang)
				if err := r.Lock(ctx); err != nil {
					errs <- err
					return
				}
				if err := r.Unlock(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if r.Token() != 0 || r.Lost() != nil {
		t.Fatalf("after the last Unlock Token() = %d, Lost() = %v; want 0, nil", r.Token(), r.Lost())
	}
	assertCleanAll(t, clients, name)
	other := multilock.NewRedLock(lcs, name)
	if ok, err := other.TryLock(redistest.Ctx(t, redistest.Hang)); !ok || err != nil {
		t.Fatalf("another owner's TryLock after the last Unlock = %v, %v; want true", ok, err)
	}
	redistest.MustUnlock(t, other)
}
