package semaphore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestRelease_in_doubt_never_called_again_frees_the_permits: a Release
// whose request never reaches the server, and which is never called
// again, does not keep the permits: they are released in the background,
// and another Client's Acquire gets them long before the lease, which the
// watchdog renewed, could end. The next Release returns nil.
func TestRelease_in_doubt_never_called_again_frees_the_permits(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	refuse := &redistest.RefuseSend{Match: redistest.IsScript}
	rc.AddHook(refuse)
	name := redistest.Unique(t)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	s := semaphore.New(redistest.Lockkit(t, rc), name, 1, long)
	p := mustAcquire(t, s, 1)
	refuse.Arm()
	if err := p.Release(redistest.Ctx(t, redistest.Hang)); !errors.Is(err, redistest.ErrNotSent) {
		t.Fatalf("Release whose request was not sent = %v", err)
	}
	other := semaphore.New(redistest.Lockkit(t, rc), name, 1, long)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q, err := other.Acquire(ctx, 1)
	if err != nil {
		t.Fatalf("Acquire by another Client after a Release in doubt never called again = %v; want the permit well within the lease", err)
	}
	mustRelease(t, q)
	mustRelease(t, p)
	select {
	case <-p.Lost():
		t.Fatal("the release settled in the background closed the lost signal")
	default:
	}
	if err := p.Release(redistest.Ctx(t, redistest.Hang)); !errors.Is(err, lockkit.ErrNotHeld) {
		t.Fatalf("Release after the settled one = %v, want ErrNotHeld", err)
	}
}
