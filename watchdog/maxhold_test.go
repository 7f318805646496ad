package watchdog_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// TestMaxHold_stops_renewing_and_reports_ErrMaxHold checks Lease.MaxHold's
// promise: the hold is renewed past its first lease while MaxHold has not
// passed, then no renewal is sent, so the key expires on the server, and
// OnLost is called once with ErrMaxHold, not before MaxHold has passed
// since Start's since.
func TestMaxHold_stops_renewing_and_reports_ErrMaxHold(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	var renewed atomic.Int64
	w := watchdog.New(c, watchdog.OnRound(func(r watchdog.Round) { renewed.Add(int64(r.Renewed)) }))
	t.Cleanup(func() { _ = w.Close() })
	const ttl, maxHold = 300 * time.Millisecond, 600 * time.Millisecond
	key := redistest.Unique(t)
	lost := make(chan error, 2)
	l := lease(key, ttl, lost)
	l.MaxHold = maxHold
	h := w.Register()
	since := time.Now()
	if err := c.Set(redistest.Ctx(t, 5*time.Second), key, 1, ttl).Err(); err != nil {
		t.Fatal(err)
	}
	h.Start(l, since)
	defer h.Stop()

	cause := redistest.Receive(t, lost, redistest.Hang, "the hold to be reported lost at its MaxHold")
	redistest.WantErr(t, cause, watchdog.ErrMaxHold)
	if held := time.Since(since); held < maxHold {
		t.Fatalf("reported lost after %v, before MaxHold (%v) passed", held, maxHold)
	}
	if renewed.Load() == 0 {
		t.Fatal("the hold was never renewed before its MaxHold")
	}
	// No renewal follows: the lease ends on the server.
	redistest.Eventually(t, 10*time.Second, "the key to expire once renewals stopped", func() bool {
		n, err := c.Exists(context.Background(), key).Result()
		return err == nil && n == 0
	})
	if w.Len() != 0 {
		t.Fatalf("Len = %d after the hold was lost, want 0", w.Len())
	}
	select {
	case err := <-lost:
		t.Fatalf("OnLost called twice, again with %v", err)
	default:
	}
}
