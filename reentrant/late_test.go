package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLock_answered_after_its_lease_takes_a_live_hold checks that a Lock
// whose acquire is answered only after the lease it asked for would have
// run out (the server stalled longer than the lease) does not return a hold
// that is lost already: it gives that one back and takes a fresh one.
func TestLock_answered_after_its_lease_takes_a_live_hold(t *testing.T) {
	srv := redistest.StartServer(t)
	const lease = time.Second
	m := reentrant.New(redistest.Lockkit(t, srv.Client(t)), redistest.Unique(t), lockkit.WithWatchdogTimeout(lease))
	srv.Stall(t, 2*lease)
	if err := m.Lock(redistest.Ctx(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	// A hold answered too late is reported lost at the watchdog's first
	// look, well within a renewal period.
	select {
	case <-m.Lost():
		t.Fatal("Lock returned a hold that is lost")
	case <-time.After(lease / 2):
	}
	redistest.WantHoldCount(t, m, 1)
	redistest.MustUnlock(t, m)
}
