package rwlock_test

import (
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestTryLock_of_a_free_lock_kept_for_a_woken_process checks TryLock's
// promise about the moment a write release keeps the free lock for the
// writers of the process it woke: a TryLock of another process fails, and
// one of the woken process (another RWMutex of its Client) succeeds. The
// woken writer's attempt is held up meanwhile, so that it cannot take the
// lock first. The lock is kept for 100 ms at most: a TryLock that came
// later proves nothing, and the test skips.
func TestTryLock_of_a_free_lock_kept_for_a_woken_process(t *testing.T) {
	srv := redistest.StartServer(t)
	var once atomic.Bool
	held := &redistest.Silence{Max: 2 * spanTimeout, Match: func(cmd redis.Cmder) bool {
		return isScript(cmd) && once.CompareAndSwap(false, true)
	}}
	defer held.Off()
	wrc := srv.Client(t)
	wrc.AddHook(held)
	holders, writers := redistest.Lockkit(t, srv.Client(t)), redistest.Lockkit(t, wrc)
	name := redistest.Unique(t)
	turn := core.KeysFor(holders, name).Turn
	a, b := rwlock.New(holders, name), rwlock.New(writers, name)
	redistest.MustLock(t, a)
	wrote := async(t, func() error { return b.Lock(redistest.Ctx(t, spanTimeout)) })
	redistest.Eventually(t, waitTimeout, "the writer to wait", func() bool {
		return writers.Notifier().Sleeping(writersChannel(writers, name)) == 1
	})

	held.On()
	redistest.MustUnlock(t, a) // keeps the free lock for the writers' process, and wakes it
	redistest.Eventually(t, waitTimeout, "the woken writer's attempt to be held up", func() bool { return held.Held() == 1 })
	other := rwlock.New(holders, name)
	if tryLock(t, other) {
		kept, err := srv.Client(t).Get(t.Context(), turn).Result()
		if err == nil && kept == writers.Notifier().ID() {
			t.Fatal("a TryLock of another process took the free lock kept for the woken process")
		}
		held.Off()
		redistest.MustUnlock(t, other)
		if err := redistest.Receive(t, wrote, waitTimeout, "the writer's Lock"); err != nil {
			t.Fatal(err)
		}
		redistest.MustUnlock(t, b)
		t.Skip("the lock was no longer kept when the other process's TryLock came (a loaded machine)")
	}
	same := rwlock.New(writers, name)
	if !tryLock(t, same) {
		t.Fatal("a TryLock of the woken process was refused the free lock kept for it")
	}
	held.Off()
	pending(t, wrote, "the woken writer's Lock while another writer of its process holds")
	redistest.MustUnlock(t, same)
	if err := redistest.Receive(t, wrote, waitTimeout, "the woken writer's Lock"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, b)
}
