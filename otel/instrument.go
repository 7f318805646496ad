package otel

import (
	"errors"
	"fmt"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/lockkit/lockkit"
)

// ScopeName is the instrumentation scope of the instruments: the name of
// the Meter they are made from.
const ScopeName = "github.com/lockkit/lockkit/otel"

// Instrument makes the instruments listed in the package doc and adds a
// [lockkit.Trace] that feeds them to client with [lockkit.Client.AddTrace],
// so that every lock of client is measured from then on (holds and waits
// already under way are measured from their end only where their end
// alone tells: see the package doc).
//
// It returns an error matching [lockkit.ErrInvalid] for a nil client, a
// client that [lockkit.Client.Err] reports invalid or a nil Option, and
// the MeterProvider's error when it refuses an instrument; client is then
// left as it was. Instrumenting a client twice measures every event twice.
func Instrument(client *lockkit.Client, opts ...Option) error {
	if client == nil {
		return fmt.Errorf("%w: otel: client must not be nil", lockkit.ErrInvalid)
	}
	if err := client.Err(); errors.Is(err, lockkit.ErrInvalid) {
		return fmt.Errorf("otel: %w", err)
	}
	var o options
	for _, opt := range opts {
		if opt == nil {
			return fmt.Errorf("%w: otel: nil Option", lockkit.ErrInvalid)
		}
		opt(&o)
	}
	if o.mp == nil {
		o.mp = otelapi.GetMeterProvider()
	}
	ins, err := newInstruments(o.mp.Meter(ScopeName))
	if err != nil {
		return fmt.Errorf("otel: %w", err)
	}
	client.AddTrace(newRecorder(ins, o.lockName).trace())
	return nil
}

// instruments are the instruments Instrument makes, one field each.
type instruments struct {
	waitDuration metric.Float64Histogram
	holdDuration metric.Float64Histogram
	acquisitions metric.Int64Counter
	renewals     metric.Int64Counter
	lost         metric.Int64Counter
	held         metric.Int64UpDownCounter
	waiting      metric.Int64UpDownCounter
	watchdog     metric.Float64Histogram
	reconnects   metric.Int64Counter
}

// Bucket boundaries, in seconds. A wait or a watchdog round trip is a few
// round trips to Redis, or as long as the holder before it keeps the lock;
// a hold may last from a round trip to minutes.
var (
	waitBuckets     = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}
	holdBuckets     = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
	watchdogBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}
)

func newInstruments(m metric.Meter) (*instruments, error) {
	var ins instruments
	var errs [9]error
	ins.waitDuration, errs[0] = seconds(m, "lockkit.lock.wait.duration", waitBuckets,
		"Duration of waits for a lock that was not free at the first attempt, by outcome.")
	ins.holdDuration, errs[1] = seconds(m, "lockkit.lock.hold.duration", holdBuckets,
		"Duration of holds, from the acquire that began them to the release that ended them or their loss.")
	ins.acquisitions, errs[2] = counter(m, "lockkit.lock.acquisitions", "{acquisition}",
		"Number of successful acquires, fresh holds and re-entries.")
	ins.renewals, errs[3] = counter(m, "lockkit.lock.renewals", "{renewal}",
		"Number of lease renewals the watchdog attempted, by outcome.")
	ins.lost, errs[4] = counter(m, "lockkit.lock.lost", "{hold}",
		"Number of holds found lost before their release.")
	ins.held, errs[5] = upDownCounter(m, "lockkit.lock.held", "{hold}",
		"Number of holds live in this process.")
	ins.waiting, errs[6] = upDownCounter(m, "lockkit.lock.waiting", "{waiter}",
		"Number of calls waiting for a lock in this process.")
	ins.watchdog, errs[7] = seconds(m, "lockkit.watchdog.duration", watchdogBuckets,
		"Duration of the watchdog's renewal round trips, by outcome.")
	ins.reconnects, errs[8] = counter(m, "lockkit.pubsub.reconnects", "{reconnect}",
		"Number of times the pub/sub connection broke and was replaced.")
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	return &ins, nil
}

// seconds returns m's histogram name of durations in seconds, with the
// given bucket boundaries.
func seconds(m metric.Meter, name string, buckets []float64, description string) (metric.Float64Histogram, error) {
	return m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(description),
		metric.WithExplicitBucketBoundaries(buckets...))
}

// counter returns m's counter name, counting unit.
func counter(m metric.Meter, name, unit, description string) (metric.Int64Counter, error) {
	return m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(description))
}

// upDownCounter returns m's up-down counter name, counting unit.
func upDownCounter(m metric.Meter, name, unit, description string) (metric.Int64UpDownCounter, error) {
	return m.Int64UpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(description))
}
