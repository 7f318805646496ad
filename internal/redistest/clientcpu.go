package redistest

import (
	"testing"
	"time"
)

// clientCPU measures the CPU time the benchmark's own process spends (the
// lock library, go-redis and the Go runtime, system calls included), to
// set beside the server's (serverCost): of two libraries that send as
// many commands, the one that costs its host more shows it here.
type clientCPU struct {
	start time.Duration
	ok    bool
}

// begin starts the measurement.
func (c *clientCPU) begin() { c.start, c.ok = processCPU() }

// report reports the process's CPU time since begin, per op, in µs, as
// the metric unit (client-cpu-us/op, say), when it could be told.
func (c *clientCPU) report(b *testing.B, ops int, unit string) {
	now, ok := processCPU()
	if !c.ok || !ok || ops == 0 {
		return
	}
	b.ReportMetric(float64(now-c.start)/float64(time.Microsecond)/float64(ops), unit)
}
