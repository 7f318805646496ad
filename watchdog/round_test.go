package watchdog_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestOnRound_counts_a_gone_hold_and_not_one_stopped_in_flight checks what
// Round promises of its counts: a renewal that finds its hold gone counts
// in Gone, and a hold stopped (an Unlock) while its renewal waits on a
// stalled server counts in none of Renewed, Retry and Gone, though the
// round trip still counts it in Holds.
func TestOnRound_counts_a_gone_hold_and_not_one_stopped_in_flight(t *testing.T) {
	srv, c, flying := stallable(t)
	w, rounds := roundsWatchdog(t, c, 16)
	const ttl = 30 * time.Second // no renewal falls due by itself
	key := redistest.Unique(t)
	if err := c.Set(redistest.Ctx(t, 5*time.Second), key, 1, ttl).Err(); err != nil {
		t.Fatal(err)
	}
	lost := make(chan error, 2)
	h := w.Register()
	h.Start(lease(key, ttl, lost), time.Now())

	srv.Stall(t, 3*time.Second)
	w.Check()
	redistest.Eventually(t, 5*time.Second, "a renewal to be in flight", func() bool { return flying.inFlight.Load() > 0 })
	h.Stop()
	r := redistest.Receive(t, rounds, redistest.Hang, "the round of the stopped hold")
	if r.Holds != 1 || r.Renewed != 0 || r.Retry != 0 || r.Gone != 0 || r.Err != nil {
		t.Fatalf("round of a hold stopped in flight: %+v, want Holds 1 and nothing counted", r)
	}

	gone := w.Register()
	defer gone.Stop()
	gone.Start(lease(redistest.Unique(t), ttl, lost), time.Now()) // no such key
	w.Check()
	r = redistest.Receive(t, rounds, redistest.Hang, "the round of the gone hold")
	if r.Holds != 1 || r.Gone != 1 || r.Renewed != 0 || r.Retry != 0 || r.Err != nil {
		t.Fatalf("round of a gone hold: %+v, want Holds 1 and Gone 1", r)
	}
	if cause := redistest.Receive(t, lost, redistest.Hang, "the gone hold to be reported"); cause != nil {
		t.Fatalf("cause = %v, want nil for a gone hold", cause)
	}
}
