package semaphore_test

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestClose_gives_back_the_permits_an_acquire_on_its_way_took: an
// Acquire, or a TryAcquire, whose request the server had not answered
// when the Client closed, and which took the permits, returns ErrClosed
// and gives the permits back before it returns: they are all free again
// for another Client, nobody holds them, and nothing is left in Redis.
func TestClose_gives_back_the_permits_an_acquire_on_its_way_took(t *testing.T) {
	for _, call := range []struct {
		name    string
		acquire func(context.Context, *semaphore.Semaphore) (*semaphore.Permits, error)
	}{
		{"Acquire", func(ctx context.Context, s *semaphore.Semaphore) (*semaphore.Permits, error) {
			return s.Acquire(ctx, 2)
		}},
		{"TryAcquire", func(ctx context.Context, s *semaphore.Semaphore) (*semaphore.Permits, error) {
			return s.TryAcquire(ctx, 2)
		}},
	} {
		t.Run(call.name, func(t *testing.T) {
			srv := redistest.StartServer(t)
			rc := srv.Client(t)
			silent := &redistest.Silence{Max: 2 * redistest.Hang, Match: redistest.IsScript}
			t.Cleanup(silent.Off)
			rc.AddHook(silent)
			lc := lockkit.New(rc)
			name := redistest.Unique(t)
			s := semaphore.New(lc, name, 3)
			mustRelease(t, mustAcquire(t, s, 2)) // the scripts are loaded
			silent.On()
			type result struct {
				p   *semaphore.Permits
				err error
			}
			got := make(chan result, 1)
			go func() {
				p, err := call.acquire(redistest.Ctx(t, redistest.Hang), s)
				got <- result{p, err}
			}()
			redistest.Eventually(t, redistest.Hang, "the acquire to be held up", func() bool { return silent.Held() > 0 })
			closed := make(chan error, 1)
			go func() { closed <- lc.Close() }()
			<-lc.Done()
			silent.Off() // the acquire runs now, and takes the permits
			r := redistest.Receive(t, got, redistest.Hang, call.name)
			if err := redistest.Receive(t, closed, redistest.Hang, "Close"); err != nil {
				t.Fatal(err)
			}
			redistest.WantErr(t, r.err, lockkit.ErrClosed)
			if r.p != nil {
				t.Fatalf("%s on its way when the Client closed returned permits with its error", call.name)
			}
			other := semaphore.New(redistest.Lockkit(t, srv.Client(t)), name, 3)
			wantAvailable(t, other, 3)
			if hs, err := other.Holders(redistest.Ctx(t, redistest.Hang)); err != nil || len(hs) != 0 {
				t.Fatalf("Holders after the failed %s = %+v, %v; want none", call.name, hs, err)
			}
			redistest.AssertClean(t, srv.Client(t), name)
		})
	}
}
