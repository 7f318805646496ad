package semaphore_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestRelease_in_doubt_settled_in_the_background_ends_with_Close: a
// Release fails because the server was stopped, and the semaphore keeps
// trying it in the background. Close does not wait for the server: it
// returns, the holder is told its hold is lost, its next Release returns
// ErrLost and ErrClosed (and the one after, ErrClosed), and no goroutine
// is left behind.
func TestRelease_in_doubt_settled_in_the_background_ends_with_Close(t *testing.T) {
	before := goleak.IgnoreCurrent()
	srv := redistest.StartServer(t)
	lc := redistest.Lockkit(t, srv.Client(t))
	p := mustAcquire(t, semaphore.New(lc, redistest.Unique(t), 1), 1)
	srv.Stop(t)
	if err := p.Release(redistest.Ctx(t, redistest.Hang)); err == nil {
		t.Fatal("Release against a stopped server = nil; want an error")
	}
	closed := make(chan error, 1)
	go func() { closed <- lc.Close() }()
	if err := redistest.Receive(t, closed, 10*time.Second, "Close"); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, p.Lost(), 10*time.Second, "the holder's lost signal")
	ctx := redistest.Ctx(t, redistest.Hang)
	redistest.WantErr(t, p.Release(ctx), lockkit.ErrLost, lockkit.ErrClosed)
	redistest.WantErr(t, p.Release(ctx), lockkit.ErrClosed)
	redistest.Eventually(t, 10*time.Second, "no goroutine left", func() bool {
		return goleak.Find(before) == nil
	})
}
