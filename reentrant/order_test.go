package reentrant_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLock_serves_the_waiters_of_a_process_in_arrival_order: the Locks of
// one process (one Client) that wait for a lock get it in the order they
// began to wait, each woken by the Unlock before it, in cohort mode as
// without it.
func TestLock_serves_the_waiters_of_a_process_in_arrival_order(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, tc := range []struct {
		name string
		opts []lockkit.Option
		// waiting reports how many Locks of lc wait for m's lock.
		waiting func(lc *lockkit.Client, m *reentrant.Mutex) int
	}{
		{"plain", nil, func(lc *lockkit.Client, m *reentrant.Mutex) int {
			return lc.Notifier().Sleeping(channelOf(lc, m.Name()))
		}},
		{"cohort", []lockkit.Option{handoff}, func(_ *lockkit.Client, m *reentrant.Mutex) int {
			return reentrant.LocalWaiters(m)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lc := redistest.Lockkit(t, srv.Client(t))
			name := redistest.Unique(t)
			holder := reentrant.New(lc, name, tc.opts...)
			redistest.MustLock(t, holder)
			ctx := redistest.Ctx(t, redistest.Hang)
			const n = 5
			var (
				mu    sync.Mutex
				order []int
				wg    sync.WaitGroup
			)
			for i := range n {
				m := reentrant.New(lc, name, tc.opts...)
				wg.Go(func() {
					if err := m.Lock(ctx); err != nil {
						t.Errorf("waiter %d: %v", i, err)
						return
					}
					mu.Lock()
					order = append(order, i) // under the lock: in the order of the holds
					mu.Unlock()
					if err := m.Unlock(ctx); err != nil {
						t.Errorf("waiter %d: Unlock: %v", i, err)
					}
				})
				redistest.Eventually(t, 10*time.Second, "the waiter to wait", func() bool {
					return tc.waiting(lc, holder) == i+1
				})
			}
			redistest.MustUnlock(t, holder)
			wg.Wait()
			if want := []int{0, 1, 2, 3, 4}; !slices.Equal(order, want) {
				t.Fatalf("waiters held the lock in the order %v, want %v (the order they began to wait)", order, want)
			}
		})
	}
}
