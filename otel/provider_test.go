package otel_test

import (
	"errors"
	"testing"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/otel"
)

// errRefused is what refusingMeter answers for one instrument.
var errRefused = errors.New("instrument refused")

// refusingProvider is a MeterProvider whose Meter refuses to make the
// lockkit.lock.renewals counter, as an SDK with a bad view might.
type refusingProvider struct{ noop.MeterProvider }

func (refusingProvider) Meter(string, ...metric.MeterOption) metric.Meter { return refusingMeter{} }

type refusingMeter struct{ noop.Meter }

func (m refusingMeter) Int64Counter(name string, opts ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	c, _ := m.Meter.Int64Counter(name, opts...)
	if name == "lockkit.lock.renewals" {
		return c, errRefused
	}
	return c, nil
}

// TestInstrument_returns_the_providers_refusal_and_leaves_the_client
// checks the doc of Instrument: when the MeterProvider refuses an
// instrument, Instrument returns its error and adds no Trace to the
// client.
func TestInstrument_returns_the_providers_refusal_and_leaves_the_client(t *testing.T) {
	c := newClient(t, "127.0.0.1:1")
	err := otel.Instrument(c, otel.WithMeterProvider(refusingProvider{}))
	if !errors.Is(err, errRefused) || errors.Is(err, lockkit.ErrInvalid) {
		t.Errorf("Instrument: %v, want the provider's error", err)
	}
	if n := len(c.Traces()); n != 0 {
		t.Errorf("a failed Instrument added %d traces", n)
	}
}

// TestWithMeterProvider_nil_means_the_global_provider checks the doc of
// WithMeterProvider: a nil MeterProvider is the default, the global one.
func TestWithMeterProvider_nil_means_the_global_provider(t *testing.T) {
	mp, reader := meterProvider(t)
	otelapi.SetMeterProvider(mp)
	t.Cleanup(func() { otelapi.SetMeterProvider(noop.NewMeterProvider()) })
	c := newClient(t, "127.0.0.1:1")
	if err := otel.Instrument(c, otel.WithMeterProvider(nil)); err != nil {
		t.Fatalf("Instrument: %v", err)
	}
	c.Traces()[0].Reconnected(lockkit.ReconnectInfo{})
	if n := sum(t, collect(t, reader), "lockkit.pubsub.reconnects"); n != 1 {
		t.Errorf("reconnects %d in the global provider, want 1", n)
	}
}
