package otel_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestInstrument_measures_a_failed_round_trip_whose_hold_was_given_up:
// a 3 s lease on a plain go-redis client (no ContextTimeoutEnabled): the
// renewal round trip against a stalled server lasts past the hold's local
// deadline, the hold is reported lost meanwhile, and the round trip that
// then fails must still be measured as failed in lockkit.watchdog.duration
// (outcome "failed"), not as a good round trip although its hold was given
// up.
func TestInstrument_measures_a_failed_round_trip_whose_hold_was_given_up(t *testing.T) {
	s := redistest.StartServer(t)
	c, reader := instrumentedOn(t, s.Client(t), lockkit.WithWatchdogTimeout(3*time.Second))
	m := reentrant.New(c, redistest.Unique(t))
	redistest.MustLock(t, m)
	s.Stall(t, 30*time.Second)
	redistest.Receive(t, m.Lost(), redistest.Hang, "the hold to be found lost")
	redistest.Eventually(t, redistest.Hang, "a failed watchdog round trip to be measured", func() bool {
		return has(collect(t, reader), "lockkit.watchdog.duration", outcome("failed"))
	})
}
