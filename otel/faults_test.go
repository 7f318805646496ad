package otel_test

import (
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/otel"
	"github.com/lockkit/lockkit/reentrant"
)

// instrumentedOn returns a Client of rc made with opts, instrumented with
// a MeterProvider of its own, and the reader of that provider.
func instrumentedOn(t *testing.T, rc redis.UniversalClient, opts ...lockkit.Option) (*lockkit.Client, *sdkmetric.ManualReader) {
	t.Helper()
	c := redistest.Lockkit(t, rc, opts...)
	mp, reader := meterProvider(t)
	if err := otel.Instrument(c, otel.WithMeterProvider(mp)); err != nil {
		t.Fatalf("Instrument: %v", err)
	}
	return c, reader
}

// TestInstrument_measures_a_hold_lost_to_a_stalled_server holds a lock
// while its server stops answering for longer than the lease: the
// watchdog's failed round trip shows in lockkit.watchdog.duration
// {outcome=failed}, the loss in lockkit.lock.lost, and the hold ends once,
// as lost, in lockkit.lock.hold.duration and lockkit.lock.held: the
// measurements the package doc says to alert on.
func TestInstrument_measures_a_hold_lost_to_a_stalled_server(t *testing.T) {
	s := redistest.StartServer(t)
	// Round trips bounded by their ctx (a third of the lease), so that the
	// failed one ends while the hold is still being renewed.
	rc := redis.NewClient(&redis.Options{Addr: s.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = rc.Close() })
	c, reader := instrumentedOn(t, rc, lockkit.WithWatchdogTimeout(3*time.Second))
	m := reentrant.New(c, redistest.Unique(t))
	redistest.MustLock(t, m)
	s.Stall(t, 30*time.Second)
	redistest.Receive(t, m.Lost(), redistest.Hang, "the hold to be found lost")
	// The hooks report the loss after the lost signal closes; the hold's
	// end is measured last.
	redistest.Eventually(t, redistest.Hang, "the loss, the hold's end and a failed watchdog round trip to be measured", func() bool {
		got := collect(t, reader)
		return has(got, "lockkit.lock.lost", kind("reentrant")) && has(got, "lockkit.watchdog.duration", outcome("failed")) &&
			has(got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("lost"))
	})

	got := collect(t, reader)
	if n := sum(t, got, "lockkit.lock.lost", kind("reentrant")); n != 1 {
		t.Errorf("lost %d, want 1", n)
	}
	if n := sum(t, got, "lockkit.lock.held", kind("reentrant")); n != 0 {
		t.Errorf("held %d after the loss, want 0", n)
	}
	if n := sum(t, got, "lockkit.lock.renewals", outcome("retry")); n < 1 {
		t.Errorf("renewals{outcome=retry} %d, want the failed renewal counted", n)
	}
	if p := hist(t, got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("lost")); p.Count != 1 || p.Sum <= 0 {
		t.Errorf("hold.duration{outcome=lost}: count %d sum %v, want 1 hold of some time", p.Count, p.Sum)
	}
	if has(got, "lockkit.lock.hold.duration", kind("reentrant"), outcome("released")) {
		t.Errorf("hold.duration{outcome=released} recorded for a hold that was lost")
	}
}

// has reports whether got's metric name has a data point whose
// attributes are exactly kv.
func has(got map[string]metricdata.Metrics, name string, kv ...attribute.KeyValue) bool {
	want := attribute.NewSet(kv...)
	return slices.ContainsFunc(attributeSets(got[name]), func(s attribute.Set) bool { return s.Equals(&want) })
}

// TestInstrument_measures_a_wait_across_a_broken_pubsub_connection cuts
// a waiting Client off the server: the broken pub/sub connection shows in
// lockkit.pubsub.reconnects, the wait stays counted in
// lockkit.lock.waiting, and once the cut heals and the holder releases,
// the wait ends as acquired, measured once.
func TestInstrument_measures_a_wait_across_a_broken_pubsub_connection(t *testing.T) {
	s := redistest.StartServer(t)
	p := redistest.StartProxy(t, s.Addr())
	rc := redis.NewClient(&redis.Options{Addr: p.Addr()})
	t.Cleanup(func() { _ = rc.Close() })
	c, reader := instrumentedOn(t, rc)
	name := redistest.Unique(t)
	holder := reentrant.New(redistest.Lockkit(t, s.Client(t)), name)
	redistest.MustLock(t, holder)

	waiter := reentrant.New(c, name)
	got := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), waiter)
	// The waiter sleeps on its process's channel once it has subscribed.
	redistest.Eventually(t, redistest.Hang, "the waiter to sleep", func() bool {
		return c.Notifier().Sleeping("lockkit:{"+name+"}:ch:"+c.Notifier().ID()) == 1
	})
	if n := sum(t, collect(t, reader), "lockkit.lock.waiting", kind("reentrant")); n != 1 {
		t.Errorf("waiting %d while the waiter sleeps, want 1", n)
	}
	p.Cut()
	redistest.Eventually(t, redistest.Hang, "the broken connection to be measured", func() bool {
		m := collect(t, reader)
		return has(m, "lockkit.pubsub.reconnects") && sum(t, m, "lockkit.pubsub.reconnects") > 0
	})
	if n := sum(t, collect(t, reader), "lockkit.lock.waiting", kind("reentrant")); n != 1 {
		t.Errorf("waiting %d while cut off, want 1", n)
	}
	p.Heal()
	redistest.MustUnlock(t, holder)
	if err := redistest.Receive(t, got, redistest.Hang, "the waiter to get the lock"); err != nil {
		t.Fatal(err)
	}
	wantOneWaitEnded(t, collect(t, reader), "acquired", kind("reentrant"))
	redistest.MustUnlock(t, waiter)
}
