package semaphore_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestRelease_after_Client_Close_still_frees_the_permits: Close reports
// an open hold lost, and its Release, called after Close, still frees its
// permits in Redis (it returns the loss, matching ErrLost and ErrClosed):
// another Client takes them at once, not after the lease.
func TestRelease_after_Client_Close_still_frees_the_permits(t *testing.T) {
	srv := redistest.StartServer(t)
	lc := lockkit.New(srv.Client(t))
	name := redistest.Unique(t)
	p := mustAcquire(t, semaphore.New(lc, name, 2), 2)
	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, p.Lost(), redistest.Hang, "Close to report the hold lost")
	redistest.WantErr(t, p.Release(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost, lockkit.ErrClosed)
	other := semaphore.New(redistest.Lockkit(t, srv.Client(t)), name, 2)
	wantAvailable(t, other, 2)
	q, err := other.TryAcquire(redistest.Ctx(t, redistest.Hang), 2)
	if err != nil || q == nil {
		t.Fatalf("TryAcquire after the closed Client's Release = %v, %v; want the permits", q, err)
	}
	mustRelease(t, q)
	redistest.AssertClean(t, srv.Client(t), name)
}
