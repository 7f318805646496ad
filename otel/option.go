package otel

import "go.opentelemetry.io/otel/metric"

// An Option configures [Instrument].
type Option func(*options)

type options struct {
	mp       metric.MeterProvider // nil: the global one, read by Instrument
	lockName bool
}

// WithMeterProvider sets the MeterProvider the instruments are made from.
// Default: the global one (go.opentelemetry.io/otel.GetMeterProvider), as
// it is when Instrument is called; a nil mp means the default too. The
// global provider delegates to one set later with SetMeterProvider, so
// Instrument may run before the SDK is set up.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) { o.mp = mp }
}

// WithLockName sets whether measurements of a lock carry its name as the
// lock.name attribute. Default: false. Each distinct name is a time series
// of its own in every instrument that carries it, so turn it on only when
// the names are few and known in advance, never for names made from
// request data (orders:42, user:7…).
func WithLockName(on bool) Option {
	return func(o *options) { o.lockName = on }
}
