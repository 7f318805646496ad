package otel_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/otel"
)

// meterProvider returns a MeterProvider and the reader that collects its
// measurements; the provider is shut down in t.Cleanup.
func meterProvider(t *testing.T) (*sdkmetric.MeterProvider, *sdkmetric.ManualReader) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	return mp, reader
}

// newClient returns a Client of a go-redis client of addr; both are closed
// in t.Cleanup.
func newClient(t *testing.T, addr string) *lockkit.Client {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = rdb.Close() })
	c := lockkit.New(rdb)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// instrumented returns the Trace that Instrument added to a new Client
// (which sends nothing to Redis unless a lock is used) and the reader of
// the MeterProvider it feeds.
func instrumented(t *testing.T, opts ...otel.Option) (*lockkit.Trace, *sdkmetric.ManualReader) {
	t.Helper()
	mp, reader := meterProvider(t)
	c := newClient(t, "127.0.0.1:1")
	if err := otel.Instrument(c, append([]otel.Option{otel.WithMeterProvider(mp)}, opts...)...); err != nil {
		t.Fatalf("Instrument: %v", err)
	}
	traces := c.Traces()
	if len(traces) != 1 {
		t.Fatalf("Instrument added %d traces, want 1", len(traces))
	}
	return traces[0], reader
}

// collect returns what reader holds, by instrument name.
func collect(t *testing.T, reader *sdkmetric.ManualReader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	got := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otel.ScopeName {
			t.Errorf("scope %q, want %q", sm.Scope.Name, otel.ScopeName)
		}
		for _, m := range sm.Metrics {
			got[m.Name] = m
		}
	}
	return got
}

// sum returns the value of the data point of the int64 sum name whose
// attributes are exactly kv, failing the test if there is none.
func sum(t *testing.T, got map[string]metricdata.Metrics, name string, kv ...attribute.KeyValue) int64 {
	t.Helper()
	return data[metricdata.Sum[int64]](t, got, name).DataPoints[point(t, got, name, kv...)].Value
}

// hist returns the data point of the float64 histogram name whose
// attributes are exactly kv, failing the test if there is none.
func hist(t *testing.T, got map[string]metricdata.Metrics, name string, kv ...attribute.KeyValue) metricdata.HistogramDataPoint[float64] {
	t.Helper()
	return data[metricdata.Histogram[float64]](t, got, name).DataPoints[point(t, got, name, kv...)]
}

// data returns the data of got's metric name, failing the test if it is
// not a D.
func data[D metricdata.Aggregation](t *testing.T, got map[string]metricdata.Metrics, name string) D {
	t.Helper()
	d, ok := got[name].Data.(D)
	if !ok {
		t.Fatalf("%s: data %T, want %T", name, got[name].Data, d)
	}
	return d
}

// point returns the index of the data point of got's metric name whose
// attributes are exactly kv, failing the test if there is none.
func point(t *testing.T, got map[string]metricdata.Metrics, name string, kv ...attribute.KeyValue) int {
	t.Helper()
	want := attribute.NewSet(kv...)
	for i, s := range attributeSets(got[name]) {
		if s.Equals(&want) {
			return i
		}
	}
	t.Fatalf("%s: no data point with {%s}; have %s", name, want.Encoded(attribute.DefaultEncoder()), attrSets(got[name]))
	return 0
}

// points returns the number of data points of m.
func points(m metricdata.Metrics) int { return len(dataPoints(m)) }

// attributeSets returns the attribute sets of m's data points.
func attributeSets(m metricdata.Metrics) []attribute.Set {
	var sets []attribute.Set
	for _, p := range dataPoints(m) {
		sets = append(sets, p.attrs)
	}
	return sets
}

func attrSets(m metricdata.Metrics) []string {
	var s []string
	for _, p := range dataPoints(m) {
		s = append(s, "{"+p.encoded()+"}")
	}
	return s
}

// wantReleasedHolds checks that got counts n acquisitions of kind k, none
// contended or a reentry, and n holds of kind k ended by a release; whose
// says in a failure which holds these are.
func wantReleasedHolds(t *testing.T, got map[string]metricdata.Metrics, k string, n int, whose string) {
	t.Helper()
	if a := sum(t, got, "lockkit.lock.acquisitions", kind(k), contended(false), reentry(false)); a != int64(n) {
		t.Errorf("acquisitions{kind=%s} %d, want %d (%s)", k, a, n, whose)
	}
	if p := hist(t, got, "lockkit.lock.hold.duration", kind(k), outcome("released")); p.Count != uint64(n) {
		t.Errorf("hold.duration{kind=%s}: count %d, want %d (%s)", k, p.Count, n, whose)
	}
}

// Attributes, as the package doc names them.
func kind(k string) attribute.KeyValue    { return attribute.String("lock.kind", k) }
func mode(m string) attribute.KeyValue    { return attribute.String("lock.mode", m) }
func name(n string) attribute.KeyValue    { return attribute.String("lock.name", n) }
func outcome(o string) attribute.KeyValue { return attribute.String("outcome", o) }
func contended(b bool) attribute.KeyValue { return attribute.Bool("lock.contended", b) }
func reentry(b bool) attribute.KeyValue   { return attribute.Bool("lock.reentry", b) }
