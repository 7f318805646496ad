package notify_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// TestNotifier_by_default_replaces_a_silently_dead_connection_within_4s:
// with the default health interval (2 s, DefaultHealthCheck), a pub/sub
// connection that goes silent is pinged after 2 s of silence and marked
// dead when the ping gets no reply within another 2 s: the waiter on it
// is woken to re-check within 2 × 2 s of the silence, and not before
// the unanswered ping had its 2 s.
func TestNotifier_by_default_replaces_a_silently_dead_connection_within_4s(t *testing.T) {
	if notify.DefaultHealthCheck != 2*time.Second {
		t.Fatalf("DefaultHealthCheck = %v; the README says 2 s", notify.DefaultHealthCheck)
	}
	srv := redistest.StartServer(t)
	proxy := newStallProxy(t, srv.Addr())
	c := redis.NewClient(&redis.Options{Addr: proxy.addr()})
	t.Cleanup(func() { c.Close() })
	onDisconnect, disconnected := disconnects()
	n := notify.New(c, onDisconnect)
	t.Cleanup(func() { _ = n.Close() })
	ch := redistest.Unique(t)
	w := subscribe(t, n, ch)
	t.Cleanup(func() { w.Leave(false) })
	got := asleep(t, n, w, ch)

	const d = notify.DefaultHealthCheck
	silent := time.Now()
	proxy.stall()
	redistest.Receive(t, disconnected, 2*d+5*time.Second, "the dead connection to be detected")
	took := time.Since(silent)
	t.Logf("the silent connection was found dead after %v", took)
	// The check runs on a timer: allow it half a second of lateness.
	if took < d || took > 2*d+500*time.Millisecond {
		t.Errorf("the silent connection was found dead after %v, want between %v and %v", took, d, 2*d)
	}
	if err := redistest.Receive(t, got, 5*time.Second, "the waiter to be woken to re-check"); err != nil {
		t.Fatalf("WaitTurn = %v", err)
	}
}
