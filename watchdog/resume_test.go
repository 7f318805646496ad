package watchdog_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// TestResume_renews_again checks that a hold resumed after Suspend (an
// Unlock that failed, say) is renewed again: its key outlives several
// leases and no loss is reported.
func TestResume_renews_again(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	const ttl = 300 * time.Millisecond
	w := watch(t, c, ttl)
	defer w.hold.Stop()
	w.hold.Suspend()
	w.hold.Resume()
	wantNoLoss(t, w.lost, 4*ttl, "resumed hold lost")
	if n, err := c.Exists(context.Background(), w.key).Result(); err != nil || n != 1 {
		t.Fatalf("the resumed hold's key is gone after 4 leases (%v): it was not renewed", err)
	}
}

// TestResume_after_the_lease_lapsed_reports_the_hold_lost checks Resume's
// promise that a hold whose lease is about to lapse by then is reported
// lost at once (cause ErrNotRenewed), not left to look held.
func TestResume_after_the_lease_lapsed_reports_the_hold_lost(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	w := watch(t, c, 300*time.Millisecond)
	defer w.hold.Stop()
	w.hold.Suspend()
	redistest.Eventually(t, 10*time.Second, "the suspended hold's lease to lapse", func() bool {
		n, err := c.Exists(context.Background(), w.key).Result()
		return err == nil && n == 0
	})
	w.hold.Resume()
	cause := redistest.Receive(t, w.lost, redistest.Hang, "the resumed hold with a lapsed lease to be reported lost")
	redistest.WantErr(t, cause, watchdog.ErrNotRenewed)
}

// TestStart_after_Close_of_a_hold_registered_before_reports_ErrClosed
// checks the path of a Lock whose acquire was in flight when the Watchdog
// closed: the hold was registered before Close and is started after it;
// Start reports it lost with ErrClosed rather than leaving it unwatched.
func TestStart_after_Close_of_a_hold_registered_before_reports_ErrClosed(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	w := watchdog.New(c)
	h := w.Register()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lost := make(chan error, 1)
	h.Start(lease(redistest.Unique(t), time.Minute, lost), time.Now())
	redistest.WantErr(t, redistest.Receive(t, lost, 5*time.Second, "OnLost of the hold started after Close"), watchdog.ErrClosed)
}

// TestNew_ignores_a_nil_option checks that a nil Option is ignored
// rather than panicking, and the Watchdog works.
func TestNew_ignores_a_nil_option(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	w := watchdog.New(c, nil)
	t.Cleanup(func() { _ = w.Close() })
	h := w.Register()
	h.Stop()
	if w.Len() != 0 {
		t.Fatalf("Len = %d after Stop, want 0", w.Len())
	}
}

// TestMargin_is_a_twentieth_clamped checks Margin's documented value:
// ttl/20, at most 100 ms and at least 1 ms.
func TestMargin_is_a_twentieth_clamped(t *testing.T) {
	for _, tc := range []struct{ ttl, want time.Duration }{
		{time.Second, 50 * time.Millisecond},
		{30 * time.Second, 100 * time.Millisecond},
		{10 * time.Millisecond, time.Millisecond},
		{0, time.Millisecond},
	} {
		if got := watchdog.Margin(tc.ttl); got != tc.want {
			t.Errorf("Margin(%v) = %v, want %v", tc.ttl, got, tc.want)
		}
	}
}

// TestNew_Register_and_Close_send_nothing checks New's promise that it
// does no I/O, and that a hold registered and stopped, or a Close, sends
// nothing either: only renewals talk to the server.
func TestNew_Register_and_Close_send_nothing(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	count := redistest.CountCommands(c)
	w := watchdog.New(c)
	h := w.Register()
	h.Stop()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := count.Total(); got != 0 {
		t.Fatalf("%d commands sent by New, Register, Stop and Close, want 0", got)
	}
}
