package semaphore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestRelease_in_doubt_of_a_hold_the_server_forgot_is_kept_as_lost: a
// Release made while the server is down fails with its outcome unknown,
// and is never called again; the server comes back empty. The release
// settled in the background finds the hold gone: the hold is reported
// lost (its Lost closes), the next Release returns that outcome, ErrLost,
// and the one after it ErrNotHeld.
func TestRelease_in_doubt_of_a_hold_the_server_forgot_is_kept_as_lost(t *testing.T) {
	srv := redistest.StartServer(t)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	s, _ := newSemaphore(t, srv.Client(t), 1, long)
	p := mustAcquire(t, s, 1)
	srv.Kill(t)
	err := p.Release(redistest.Ctx(t, redistest.Hang))
	if err == nil || errors.Is(err, lockkit.ErrNotHeld) || errors.Is(err, lockkit.ErrLost) {
		t.Fatalf("Release against a dead server = %v; want an error that leaves its outcome unknown", err)
	}
	srv.Restart(t)
	redistest.Receive(t, p.Lost(), redistest.Hang, "the release settled in the background to find the hold gone")
	redistest.WantErr(t, p.Release(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost)
	redistest.WantErr(t, p.Release(redistest.Ctx(t, redistest.Hang)), lockkit.ErrNotHeld)
}
