package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLock_after_a_loss_takes_a_fresh_hold: a hold that the watchdog
// reported lost because it could not renew it in time may still linger in
// Redis for the margin the watchdog keeps (here for ever: miniredis's
// clock stands still). The owner's next Lock must take a fresh hold: a
// token larger than the lost one's, and an Unlock that frees the lock.
func TestLock_after_a_loss_takes_a_fresh_hold(t *testing.T) {
	mr, rc := redistest.Mini(t)
	lc := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	m := reentrant.New(lc, name, lockkit.WithWatchdogTimeout(300*time.Millisecond))
	redistest.MustLock(t, m)
	lost := m.Token()
	mr.SetError("ERR unreachable") // every renewal fails
	redistest.Receive(t, m.Lost(), 10*time.Second, "the lost signal")
	mr.SetError("")
	redistest.MustLock(t, m)
	if m.Token() <= lost {
		t.Errorf("token after the loss %d, want more than the lost hold's %d", m.Token(), lost)
	}
	redistest.MustUnlock(t, m)
	if ok, err := reentrant.New(lc, name).TryLock(redistest.Ctx(t, 5*time.Second)); !ok || err != nil {
		t.Fatalf("TryLock by another owner after the Unlock = %v, %v; want the lock free", ok, err)
	}
}
