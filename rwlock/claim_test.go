package rwlock_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestRLock_gets_in_after_the_claim_of_a_writer_that_gave_up checks that a
// writer that claimed the lock and then gave up costs the readers one
// pause at most: a reader waiting in RLock when the last read hold ends
// gets in once the hand-off for writers is over (nobody else wakes it),
// and after that the free lock admits readers at once.
func TestRLock_gets_in_after_the_claim_of_a_writer_that_gave_up(t *testing.T) {
	for _, prefer := range []bool{true, false} {
		t.Run(map[bool]string{true: "with preference", false: "without preference"}[prefer], func(t *testing.T) {
			onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
				opt := rwlock.WithWriterPreference(prefer)
				r, w := rwlock.New(lc, name, opt), rwlock.New(lc, name, opt)
				mustRLock(t, r)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				wrote := async(t, func() error { return w.Lock(ctx) })
				redistest.Eventually(t, waitTimeout, "the writer to wait", func() bool {
					return lc.Notifier().Sleeping(writersChannel(lc, name)) == 1
				})
				cancel()
				redistest.WantErr(t, redistest.Receive(t, wrote, waitTimeout, "the cancelled Lock"), context.Canceled)
				mustRUnlock(t, r) // frees the claimed lock: it is kept for writers a moment
				reader := rwlock.New(lc, name, opt)
				mustRLock(t, reader)
				wantState(t, reader, rwlock.ReadLocked, 1, 0, 1)
				mustRUnlock(t, reader)
				wantAdmitted(t, rwlock.New(lc, name, opt), "after the pause of the claim")
			})
		})
	}
}
