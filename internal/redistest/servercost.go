package redistest

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// serverCost measures the CPU time a redis-server process spends, from its
// INFO CPU (used_cpu_sys + used_cpu_user): the server's whole cost, network
// included, which the load of other processes on a shared machine does
// not inflate as it does wall time; and the commands it runs, those its
// scripts call included (serverCalls). A server that does not report them
// (miniredis) is not measured.
type serverCost struct {
	c     *redis.Client
	start float64 // seconds, at begin; < 0 when the server does not tell
	calls int64   // serverCalls at begin; < 0 when the server does not tell
}

// used returns the server's CPU time so far, in seconds, or -1 when it
// does not report it (miniredis refuses INFO CPU).
func (s *serverCost) used(b *testing.B) float64 {
	info, err := s.c.Info(context.Background(), "cpu").Result()
	if err != nil {
		return -1
	}
	total, found := 0.0, 0
	for _, line := range strings.Split(info, "\n") {
		name, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || (name != "used_cpu_sys" && name != "used_cpu_user") {
			continue
		}
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			b.Fatalf("%s: %v", line, err)
		}
		total += n
		found++
	}
	if found != 2 {
		return -1
	}
	return total
}

// begin starts the measurement, when there is a server to measure.
func (s *serverCost) begin(b *testing.B) {
	if s.c != nil {
		s.start = s.used(b)
		s.calls = serverCalls(s.c)
	}
}

// report reports, per op since begin, the server's CPU time in µs as
// redis-cpu-us/op, and the commands it ran as redis-calls/op.
func (s *serverCost) report(b *testing.B, ops int) {
	if s.c == nil || ops == 0 {
		return
	}
	if end := s.used(b); s.start >= 0 && end >= 0 {
		b.ReportMetric((end-s.start)*1e6/float64(ops), "redis-cpu-us/op")
	}
	if end := serverCalls(s.c); s.calls >= 0 && end >= 0 {
		b.ReportMetric(float64(end-s.calls)/float64(ops), "redis-calls/op")
	}
}
