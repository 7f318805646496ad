package otel_test

import (
	"fmt"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// dataPoint is one data point of a metric this module records: of an
// int64 sum or a float64 histogram.
type dataPoint struct {
	attrs attribute.Set
	value string // the sum's value, or the histogram's count as count=N
}

// encoded returns p's attributes as sorted k=v pairs, comma-separated.
func (p dataPoint) encoded() string { return p.attrs.Encoded(attribute.DefaultEncoder()) }

// dataPoints returns the data points of m.
func dataPoints(m metricdata.Metrics) []dataPoint {
	var ps []dataPoint
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			ps = append(ps, dataPoint{p.Attributes, fmt.Sprint(p.Value)})
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			ps = append(ps, dataPoint{p.Attributes, fmt.Sprintf("count=%d", p.Count)})
		}
	}
	return ps
}

// lines returns one line per data point of rm, sorted: the instrument's
// name, the point's attributes, its value and the unit.
func lines(rm metricdata.ResourceMetrics) []string {
	var out []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			for _, p := range dataPoints(m) {
				out = append(out, fmt.Sprintf("%s{%s} %s %s", m.Name, p.encoded(), p.value, m.Unit))
			}
		}
	}
	slices.Sort(out)
	return out
}
