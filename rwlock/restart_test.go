package rwlock_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestWaiters_get_the_lock_a_redis_restart_lost checks that readers and a
// writer waiting behind holds that a Redis restart lost get the lock soon
// after the restart (woken when their subscriptions come back), instead of
// sleeping until the lost holds' 30 s leases would have ended.
func TestWaiters_get_the_lock_a_redis_restart_lost(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	holders, waiters := redistest.Lockkit(t, c), redistest.Lockkit(t, c)
	for _, side := range []string{"readers behind a writer", "a writer behind a reader"} {
		name := redistest.Unique(t)
		holder, waiter := rwlock.New(holders, name), rwlock.New(waiters, name)
		lock, unlock := holder.Lock, holder.Unlock
		wait, release, sleepsOn := waiter.RLock, waiter.RUnlock, channel(waiters, name, "ch")
		if side == "a writer behind a reader" {
			lock, unlock = holder.RLock, holder.RUnlock
			wait, release, sleepsOn = waiter.Lock, waiter.Unlock, writersChannel(waiters, name)
		}
		must(t, holder, "lock", lock)
		got := async(t, func() error { return wait(redistest.Ctx(t, spanTimeout)) })
		redistest.Eventually(t, waitTimeout, "the waiter to sleep", func() bool {
			return waiters.Notifier().Sleeping(sleepsOn) == 1
		})
		srv.Restart(t)
		if err := redistest.Receive(t, got, waitTimeout, side+": the wait across the restart"); err != nil {
			t.Fatalf("%s: %v", side, err)
		}
		must(t, waiter, "release", release)
		redistest.WantErr(t, unlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrLost)
	}
}
