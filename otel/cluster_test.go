package otel_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestInstrument_measures_one_watchdog_round_trip_per_shard holds three
// locks on three masters of a Cluster: the package doc says the watchdog
// makes one renewal round trip per shard per tick, and lockkit.lock.renewals
// counts one renewal per hold per round trip, so each round trip measured
// in lockkit.watchdog.duration renews one hold. A watchdog that renewed
// every hold in one round trip would show three renewals per round trip.
func TestInstrument_measures_one_watchdog_round_trip_per_shard(t *testing.T) {
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	c, reader := instrumentedOn(t, cc, lockkit.WithWatchdogTimeout(3*time.Second))
	for _, name := range redistest.NamesOnDistinctMasters(t, cc, 3) {
		m := reentrant.New(c, name)
		redistest.MustLock(t, m)
		t.Cleanup(func() { _ = m.Unlock(redistest.Ctx(t, redistest.Hang)) })
	}
	// A round trip adds its renewals before its duration: wait for a
	// moment when both are measured, after at least one tick of each shard.
	redistest.Eventually(t, redistest.Hang, "three round trips, each renewing one hold", func() bool {
		got := collect(t, reader)
		if !has(got, "lockkit.watchdog.duration", outcome("ok")) || !has(got, "lockkit.lock.renewals", outcome("renewed")) {
			return false
		}
		trips := hist(t, got, "lockkit.watchdog.duration", outcome("ok")).Count
		return trips >= 3 && uint64(sum(t, got, "lockkit.lock.renewals", outcome("renewed"))) == trips
	})
}
