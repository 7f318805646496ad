package watchdog_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/watchdog"
)

// roundsWatchdog returns a Watchdog of c, closed when the test ends, that
// sends each Round it reports to the channel returned, which holds n; a
// round that finds it full is dropped rather than hold up the watchdog.
func roundsWatchdog(t *testing.T, c redis.UniversalClient, n int) (*watchdog.Watchdog, <-chan watchdog.Round) {
	t.Helper()
	rounds := make(chan watchdog.Round, n)
	w := watchdog.New(c, watchdog.OnRound(func(r watchdog.Round) {
		select {
		case rounds <- r:
		default:
		}
	}))
	t.Cleanup(func() { _ = w.Close() })
	return w, rounds
}
