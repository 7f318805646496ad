package watchdog_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// TestWatchdog_reports_a_hold_gone_after_the_server_restarted_empty checks
// what a renewed hold is promised when the server is killed and comes back
// without its data (and without the scripts it had loaded): the next
// renewal, sent on a connection that the restart broke, is loaded anew on
// the restarted server and finds the hold gone, so the hold is reported
// lost with a nil cause before its lease could have lapsed, not with
// ErrNotRenewed at its deadline.
func TestWatchdog_reports_a_hold_gone_after_the_server_restarted_empty(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	w, rounds := roundsWatchdog(t, c, 64)
	const ttl = 6 * time.Second // renewed every 2 s
	_, _, lost := watchedKey(t, c, w, ttl)
	nextRound(t, rounds, "a renewal before the restart", func(r watchdog.Round) bool { return r.Renewed == 1 })

	srv.Kill(t)
	srv.Restart(t)
	cause := redistest.Receive(t, lost, ttl, "the hold to be reported lost after the restart")
	if cause != nil {
		t.Fatalf("OnLost cause = %v, want nil: the restarted server has no such hold", cause)
	}
	if w.Len() != 0 {
		t.Fatalf("Len = %d after the hold was found gone, want 0", w.Len())
	}
}
