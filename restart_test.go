package lockkit_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestRestart_without_persistence_reports_a_hold_lost_within_one_watchdog_period
// checks the limit the README states for a standalone server: a restart
// that loses the data frees every lock, and a holder is told through
// Lost() within one watchdog period (a third of the watchdog timeout, the
// time between renewals), not only when its lease would have run out,
// even with no pub/sub connection whose break would have it verified at
// once.
func TestRestart_without_persistence_reports_a_hold_lost_within_one_watchdog_period(t *testing.T) {
	srv := redistest.StartServer(t)
	const wd = 3 * time.Second
	lc := redistest.Lockkit(t, srv.Client(t), lockkit.WithWatchdogTimeout(wd))
	m := reentrant.New(lc, redistest.Unique(t))
	redistest.MustLock(t, m)
	srv.Restart(t)
	// The slack covers the round trip and a loaded machine, well short of
	// the lease's end (wd less its margin).
	redistest.Receive(t, m.Lost(), wd/3+wd/6, "the lost signal within one watchdog period of the restart")
	redistest.WantErr(t, m.Unlock(redistest.Ctx(t, 10*time.Second)), lockkit.ErrLost)
}
