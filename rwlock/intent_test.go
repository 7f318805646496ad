package rwlock_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestLock_giving_up_keeps_the_intent_of_the_owner_still_waiting checks
// writer preference when two calls wait in Lock as one owner (goroutines
// sharing an RWMutex, or RWMutexes sharing an owner id): when one gives
// up, the owner still waits, so its intent stays and new readers stay out
// until it has had the write lock.
func TestLock_giving_up_keeps_the_intent_of_the_owner_still_waiting(t *testing.T) {
	for _, tc := range []struct {
		name string
		pair func(lc *lockkit.Client, name string) (quitter, stayer *rwlock.RWMutex)
	}{
		{"one RWMutex", func(lc *lockkit.Client, name string) (*rwlock.RWMutex, *rwlock.RWMutex) {
			m := rwlock.New(lc, name)
			return m, m
		}},
		{"one owner id", func(lc *lockkit.Client, name string) (*rwlock.RWMutex, *rwlock.RWMutex) {
			return rwlock.New(lc, name, lockkit.WithOwner("o")), rwlock.New(lc, name, lockkit.WithOwner("o"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
				reader := rwlock.New(lc, name)
				mustRLock(t, reader)
				quitter, stayer := tc.pair(lc, name)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				gone := async(t, func() error { return quitter.Lock(ctx) })
				stays := async(t, func() error { return stayer.Lock(redistest.Ctx(t, spanTimeout)) })
				redistest.Eventually(t, waitTimeout, "both writers to wait", func() bool {
					return lc.Notifier().Sleeping(writersChannel(lc, name)) == 2
				})
				cancel()
				redistest.WantErr(t, redistest.Receive(t, gone, waitTimeout, "the cancelled Lock"), context.Canceled)
				if s := state(t, reader); s.WaitingWriters != 1 {
					t.Fatalf("WaitingWriters = %d after one of the owner's two Locks gave up, want 1", s.WaitingWriters)
				}
				if tryRLock(t, rwlock.New(lc, name)) {
					t.Fatal("a new reader got in while the owner still waits to write")
				}
				mustRUnlock(t, reader)
				if err := redistest.Receive(t, stays, waitTimeout, "the Lock still waiting"); err != nil {
					t.Fatalf("Lock = %v", err)
				}
				redistest.MustUnlock(t, stayer)
			})
		})
	}
}

// TestRLock_without_writer_preference_ignores_intents checks that writer
// preference takes both sides: while a writer with it waits, a reader made
// with WithWriterPreference(false) still gets in, and one with it does
// not.
func TestRLock_without_writer_preference_ignores_intents(t *testing.T) {
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
		r, w := readHeld(t, lc, name)
		wrote := async(t, func() error { return w.Lock(redistest.Ctx(t, spanTimeout)) })
		redistest.Eventually(t, waitTimeout, "the writer's intent", func() bool { return state(t, r).WaitingWriters == 1 })
		if tryRLock(t, rwlock.New(lc, name)) {
			t.Fatal("a reader with writer preference got in while a writer waits")
		}
		heedless := rwlock.New(lc, name, rwlock.WithWriterPreference(false))
		mustRLock(t, heedless)
		mustRUnlock(t, heedless)
		mustRUnlock(t, r)
		if err := redistest.Receive(t, wrote, waitTimeout, "Lock after the readers left"); err != nil {
			t.Fatal(err)
		}
		redistest.MustUnlock(t, w)
	})
}
