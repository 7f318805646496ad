package fair_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLock_mutexes_sharing_an_owner_id_share_its_place checks that two
// Mutexes with one owner id (WithOwner) have one place in the queue, as
// goroutines sharing one Mutex do: when one of them gives up, the other
// keeps the place, ahead of a waiter that joined after them, and takes the
// lock first.
func TestLock_mutexes_sharing_an_owner_id_share_its_place(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *lockEnv) {
		opts := []lockkit.Option{lockkit.WithOwner("o"), fair.WithWaiterTimeout(time.Minute)}
		holder := e.held()
		quitter, stayer, later := e.mutex(opts...), e.mutex(opts...), e.mutex(lockkit.WithOwner("x"))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		gone := redistest.LockAsync(ctx, quitter)
		e.waitQueue("o")
		stays := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), stayer)
		redistest.Eventually(t, 10*time.Second, "two Mutexes waiting as o", func() bool {
			return e.lc.Notifier().Sleeping(channelOf(e.name, "o")) == 2
		})
		comes := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), later)
		e.waitQueue("o", "x")
		cancel()
		redistest.WantErr(t, redistest.Receive(t, gone, 10*time.Second, "the cancelled Lock"), context.Canceled)
		e.wantQueue("o", "x")
		redistest.MustUnlock(t, holder)
		e.wantTurn(stayer, stays, 10*time.Second, "the Mutex still waiting as o", "x")
		e.wantTurn(later, comes, 10*time.Second, "x")
	})
}

// TestLock_without_reentry_the_owners_other_goroutines_queue_again_at_the_end
// checks New's promise for a non-reentrant lock: goroutines waiting as one
// owner share its place, and when one of them takes the lock the others
// queue again at the end, behind a waiter that joined after them.
func TestLock_without_reentry_the_owners_other_goroutines_queue_again_at_the_end(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *lockEnv) {
		holder := e.held()
		m := e.mutex(lockkit.WithOwner("m"), lockkit.WithoutReentry(), fair.WithWaiterTimeout(time.Minute))
		first := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), m)
		second := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), m)
		redistest.Eventually(t, 10*time.Second, "two goroutines waiting as m", func() bool {
			return e.lc.Notifier().Sleeping(channelOf(e.name, "m")) == 2
		})
		x := e.mutex(lockkit.WithOwner("x"))
		comes := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), x)
		e.waitQueue("m", "x")
		redistest.MustUnlock(t, holder)
		i, err := eitherLocked(t, first, second, 10*time.Second, "no goroutine of m took the lock after the release")
		if err != nil {
			t.Fatalf("Lock of a goroutine of m: %v", err)
		}
		rest := [2]<-chan error{second, first}[i] // the Lock of the goroutine of m still waiting
		e.waitQueue("x", "m")
		redistest.MustUnlock(t, m)
		e.wantTurn(x, comes, 10*time.Second, "x, which joined after m", "m")
		e.wantTurn(m, rest, 10*time.Second, "m's other goroutine")
	})
}
