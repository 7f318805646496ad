package semaphore_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// lateLease is the watchdog timeout of the semaphores whose acquires the
// server answers after a stall of twice as long.
const lateLease = time.Second

// newLateSemaphore returns a semaphore of 2 permits with a lease of
// lateLease on a real server, its scripts loaded, and the server, stalled
// for twice the lease.
func newLateSemaphore(t *testing.T) (*semaphore.Semaphore, *redistest.Server) {
	t.Helper()
	srv := redistest.StartServer(t)
	s, _ := newSemaphore(t, srv.Client(t), 2, lockkit.WithWatchdogTimeout(lateLease))
	mustRelease(t, mustAcquire(t, s, 1))
	srv.Stall(t, 2*lateLease)
	return s, srv
}

// TestAcquire_answered_after_its_lease_takes_a_live_hold stalls the server
// under an Acquire for twice the lease: the hold it took is answered after
// its lease would have run out, so Acquire gives it back and takes a live
// one, which the watchdog keeps past its first lease.
func TestAcquire_answered_after_its_lease_takes_a_live_hold(t *testing.T) {
	s, srv := newLateSemaphore(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	p, err := s.Acquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	rc := srv.Client(t)
	taken, err := rc.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	redistest.Eventually(t, redistest.Hang, "the server's clock to pass the first lease", func() bool {
		now, err := rc.Time(ctx).Result()
		return err == nil && now.Sub(taken) > lateLease+lateLease/4
	})
	if redistest.Closed(p.Lost()) {
		t.Fatal("Acquire returned a hold that is lost")
	}
	hs, err := s.Holders(ctx)
	if err != nil || len(hs) != 1 || hs[0].Token != p.Token() {
		t.Fatalf("Holders = %+v, %v; want the hold of token %d alone", hs, err, p.Token())
	}
	mustRelease(t, p)
}

// TestTryAcquire_answered_after_its_lease_gives_the_permits_back stalls
// the server under a TryAcquire of free permits for twice the lease: the
// hold it took is answered after its lease would have run out, so
// TryAcquire gives it back and returns nil and a nil error, as for permits
// not free, and the permits are free when it returns.
func TestTryAcquire_answered_after_its_lease_gives_the_permits_back(t *testing.T) {
	s, _ := newLateSemaphore(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	p, err := s.TryAcquire(ctx, 1)
	if p != nil || err != nil {
		t.Fatalf("TryAcquire answered after its lease = %v, %v; want nil, nil", p, err)
	}
	wantAvailable(t, s, 2)
	if hs, err := s.Holders(context.Background()); err != nil || len(hs) != 0 {
		t.Fatalf("Holders = %+v, %v; want none", hs, err)
	}
}
