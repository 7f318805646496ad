package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLock_waits_out_a_subscription_that_fails_for_a_moment: a Lock
// refused at first subscribes to be woken, and that subscription's
// connection fails a few times, as while the server restarts. Lock waits
// that out, as it waits out a restart once subscribed, and gets the lock
// when the holder releases it, instead of failing at once. Both waiters
// that subscribe: the reentrant lock's (woken per process) and the fair
// lock's (woken in queue order).
func TestLock_waits_out_a_subscription_that_fails_for_a_moment(t *testing.T) {
	s := redistest.StartServer(t)
	for _, k := range []struct {
		name string
		new  func(*lockkit.Client, string, ...lockkit.Option) *reentrant.Mutex
	}{{"reentrant", reentrant.New}, {"fair", fair.New}} {
		t.Run(k.name, func(t *testing.T) {
			name := redistest.Unique(t)
			holder := k.new(redistest.Lockkit(t, s.Client(t)), name)
			redistest.MustLock(t, holder)
			fail := &redistest.FailDials{}
			rc := s.HookedClient(t, fail) // a connection for the attempts is open
			m := k.new(redistest.Lockkit(t, rc), name)
			fail.Arm(3)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			got := redistest.LockAsync(ctx, m)
			redistest.Eventually(t, 10*time.Second, "the subscription's dials to fail, or Lock to return", func() bool {
				return fail.Left() == 0 || len(got) > 0
			})
			waitsForUnlock(t, holder, got, 20*time.Second, "the Lock whose subscription failed for a moment")
			redistest.MustUnlock(t, m)
		})
	}
}
