package rwlock_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestReentry_through_another_value_of_the_owner_does_not_queue checks
// that RWMutexes sharing an owner id (WithOwner) are one owner whose
// re-entries are decided at once: an RLock or Lock by a second value, of
// a hold the first took, never queues behind this process's waiters, who
// wait for that very owner (queued, it would wait for them forever).
func TestReentry_through_another_value_of_the_owner_does_not_queue(t *testing.T) {
	onBackends(t, func(t *testing.T, c redis.UniversalClient, lc *lockkit.Client, name string) {
		first, second := rwlock.New(lc, name, lockkit.WithOwner("o")), rwlock.New(lc, name, lockkit.WithOwner("o"))
		other := redistest.Lockkit(t, c)
		at := func(what string, call func() error) {
			t.Helper()
			if err := redistest.Receive(t, async(t, call), waitTimeout, what); err != nil {
				t.Fatalf("%s = %v", what, err)
			}
		}

		// The owner reads; a writer waits, and a reader of this process
		// waits behind the writer's intent.
		mustRLock(t, first)
		w := rwlock.New(other, name)
		wrote := async(t, func() error { return w.Lock(redistest.Ctx(t, spanTimeout)) })
		redistest.Eventually(t, waitTimeout, "the writer's intent", func() bool { return state(t, first).WaitingWriters == 1 })
		r := rwlock.New(lc, name)
		read := async(t, func() error { return r.RLock(redistest.Ctx(t, spanTimeout)) })
		redistest.Eventually(t, waitTimeout, "the reader to wait", func() bool {
			return lc.Notifier().Sleeping(channel(lc, name, "ch")) == 1
		})
		at("RLock by the second value of the reading owner", func() error { return second.RLock(redistest.Ctx(t, waitTimeout)) })
		mustRUnlock(t, second)
		mustRUnlock(t, first)
		at("the writer's Lock", func() error { return <-wrote })

		// The owner writes; a writer of this process waits.
		redistest.MustUnlock(t, w)
		at("the reader's RLock", func() error { return <-read })
		mustRUnlock(t, r)
		redistest.MustLock(t, first)
		w2 := rwlock.New(lc, name)
		wrote = async(t, func() error { return w2.Lock(redistest.Ctx(t, spanTimeout)) })
		redistest.Eventually(t, waitTimeout, "the writer to wait", func() bool {
			return lc.Notifier().Sleeping(writersChannel(lc, name)) == 1
		})
		at("Lock by the second value of the writing owner", func() error { return second.Lock(redistest.Ctx(t, waitTimeout)) })
		redistest.MustUnlock(t, second)
		redistest.MustUnlock(t, first)
		at("the waiting writer's Lock", func() error { return <-wrote })
		redistest.MustUnlock(t, w2)
	})
}

// TestRLock_late_undo_after_another_values_reentry_leaves_no_read_hold: an
// RLock under a shared owner id whose reply comes late, after another
// value of the owner re-entered the read hold, is undone alone when the
// reply comes: once the other values RUnlock, a writer gets the lock at
// once, not after the read lease.
func TestRLock_late_undo_after_another_values_reentry_leaves_no_read_hold(t *testing.T) {
	onBackends(t, func(t *testing.T, c redis.UniversalClient, lc *lockkit.Client, name string) {
		owned := func(lc *lockkit.Client) *rwlock.RWMutex { return rwlock.New(lc, name, lockkit.WithOwner("o")) }
		a := owned(lc)
		mustRLock(t, a)
		var first atomic.Bool
		late := &redistest.Silence{Late: true, Max: 2 * spanTimeout, Match: func(cmd redis.Cmder) bool {
			return isScript(cmd) && first.CompareAndSwap(false, true)
		}}
		defer late.Off()
		rc := redistest.SpecClient(redistest.ClientSpec(c))
		defer rc.Close()
		rc.AddHook(late)
		m := owned(redistest.Lockkit(t, rc))
		late.On()
		ctx, cancel := context.WithCancel(redistest.Ctx(t, spanTimeout))
		defer cancel()
		read := async(t, func() error { return m.RLock(ctx) })
		redistest.Eventually(t, waitTimeout, "m's acquire to run", func() bool { return late.Held() == 1 })
		b := owned(lc)
		mustRLock(t, b)
		cancel()
		redistest.WantErr(t, redistest.Receive(t, read, waitTimeout, "m's RLock to give up"), context.Canceled)
		late.Off() // the reply comes, and m undoes its acquire
		mustRUnlock(t, b)
		mustRUnlock(t, a)
		wantWriterGets(t, lc, name)
	})
}
