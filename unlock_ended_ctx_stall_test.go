package lockkit_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
)

// TestUnlock_with_an_ended_ctx_waits_at_most_500ms_for_a_stalled_server_and_releases_after:
// an Unlock whose ctx has ended already still releases, on a detached
// context, and waits for the server at most 500 ms (README, "Unlock"):
// against a server stalled for 3 s it returns within 500 ms (and a second
// of slack for a loaded machine, well short of the stall), the release
// goes on in the background, and once the stall is over another owner of
// another Client takes the lock long before the holder's 30 s lease could
// end; the holder's next Unlock returns nil, the outcome of the first. For
// each exclusive kind and the read side of rwlock (whose other owner is a
// writer).
func TestUnlock_with_an_ended_ctx_waits_at_most_500ms_for_a_stalled_server_and_releases_after(t *testing.T) {
	srv := redistest.StartServer(t)
	type newLock func(c *lockkit.Client, name string) lockkit.Locker
	writer := func(c *lockkit.Client, n string) lockkit.Locker { return rwlock.New(c, n) }
	for _, k := range []struct {
		kind          string
		holder, taker newLock
	}{
		{"reentrant", func(c *lockkit.Client, n string) lockkit.Locker { return reentrant.New(c, n) }, nil},
		{"fair", func(c *lockkit.Client, n string) lockkit.Locker { return fair.New(c, n) }, nil},
		{"spin", func(c *lockkit.Client, n string) lockkit.Locker { return spin.New(c, n) }, nil},
		{"rwlock write", writer, nil},
		{"rwlock read", func(c *lockkit.Client, n string) lockkit.Locker { return rwlock.New(c, n).RLocker() }, writer},
	} {
		t.Run(k.kind, func(t *testing.T) {
			if k.taker == nil {
				k.taker = k.holder
			}
			name := redistest.Unique(t)
			m := k.holder(redistest.Lockkit(t, srv.Client(t)), name)
			other := k.taker(redistest.Lockkit(t, srv.Client(t)), name)
			redistest.MustLock(t, m)

			ended, cancel := context.WithCancel(context.Background())
			cancel()
			srv.Stall(t, 3*time.Second)
			begin := time.Now()
			err := m.Unlock(ended)
			took := time.Since(begin)
			t.Logf("Unlock with an ended ctx against the stalled server returned %v after %v", err, took)
			if bound := 500*time.Millisecond + time.Second; took > bound {
				t.Errorf("Unlock with an ended ctx took %v against a stalled server, want at most 500 ms (%v with slack)", took, bound)
			}

			ctx := redistest.Ctx(t, redistest.Hang)
			redistest.Eventually(t, 10*time.Second, "another owner to take the lock the background release freed", func() bool {
				ok, err := other.TryLock(ctx)
				if err != nil {
					t.Fatalf("TryLock by another owner = %v", err)
				}
				return ok
			})
			if err != nil {
				if err := m.Unlock(ctx); err != nil {
					t.Errorf("the next Unlock = %v, want nil: the first one's outcome", err)
				}
			}
			redistest.MustUnlock(t, other)
		})
	}
}
