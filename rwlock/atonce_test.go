package rwlock_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestHolder_calls_are_decided_at_once_behind_waiters_of_its_process checks
// the package doc's promise that a re-entry, a writer's RLock and a
// refused upgrade never queue behind the waiters of the holder's own
// process, which wait for this very holder: queued, each would wait for
// them, and they for it, until ctx ended. These calls get no deadline, so
// one that queued would fail the test at waitTimeout instead of returning.
func TestHolder_calls_are_decided_at_once_behind_waiters_of_its_process(t *testing.T) {
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
		readers, writers := channel(lc, name, "ch"), writersChannel(lc, name)
		// waitBehind starts call, which must wait, and returns once it
		// sleeps on channel ch (one more sleeper than before).
		waitBehind := func(what, ch string, call func(context.Context) error) <-chan error {
			t.Helper()
			before := lc.Notifier().Sleeping(ch)
			got := async(t, func() error { return call(redistest.Ctx(t, spanTimeout)) })
			redistest.Eventually(t, waitTimeout, what+" to wait", func() bool { return lc.Notifier().Sleeping(ch) == before+1 })
			return got
		}
		// atOnce runs call without a deadline and returns its error.
		atOnce := func(what string, call func(context.Context) error) error {
			t.Helper()
			return redistest.Receive(t, async(t, func() error { return call(t.Context()) }), waitTimeout, what)
		}
		done := func(what string, got <-chan error) {
			t.Helper()
			if err := redistest.Receive(t, got, waitTimeout, what); err != nil {
				t.Fatalf("%s = %v", what, err)
			}
		}

		// A writer holds; a reader and a writer of its process wait for it.
		w, r1, w2, r3 := rwlock.New(lc, name), rwlock.New(lc, name), rwlock.New(lc, name), rwlock.New(lc, name)
		redistest.MustLock(t, w)
		read1 := waitBehind("a reader", readers, r1.RLock)
		wrote2 := waitBehind("a writer", writers, w2.Lock)
		if err := atOnce("the writer's RLock", w.RLock); err != nil {
			t.Fatal(err)
		}
		if err := atOnce("the writer's re-entry", w.Lock); err != nil {
			t.Fatal(err)
		}
		redistest.MustUnlock(t, w)
		redistest.MustUnlock(t, w) // a downgrade: w reads, and the waiting reader gets in
		done("the waiting reader's RLock", read1)

		// Readers hold; a writer of their process waits with its intent,
		// and, once the readers' turn of the downgrade is over, a new
		// reader of their process waits behind it.
		redistest.Eventually(t, waitTimeout, "the writer's intent to hold back new readers", func() bool {
			if tryRLock(t, r3) {
				mustRUnlock(t, r3)
				return false
			}
			return state(t, w).WaitingWriters == 1
		})
		read3 := waitBehind("a new reader", readers, r3.RLock)
		if err := atOnce("a reader's re-entry", r1.RLock); err != nil {
			t.Fatal(err)
		}
		for what, m := range map[string]*rwlock.RWMutex{"a reader's Lock": r1, "the downgraded writer's Lock": w} {
			redistest.WantErr(t, atOnce(what, m.Lock), lockkit.ErrUpgrade)
		}
		wantState(t, r1, rwlock.ReadLocked, 2, 0, 2)

		// The readers leave: the writer, then the new reader, get in.
		mustRUnlock(t, r1)
		mustRUnlock(t, r1)
		mustRUnlock(t, w)
		done("the waiting writer's Lock", wrote2)
		redistest.MustUnlock(t, w2)
		done("the new reader's RLock", read3)
		mustRUnlock(t, r3)
	})
}
