package redistest

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// serverCPU measures the CPU time a redis-server process spends, from its
// INFO CPU (used_cpu_sys + used_cpu_user): the server's whole cost, network
// included, which the load of other processes on a shared machine does
// not inflate as it does wall time. A server that does not report it
// (miniredis) is not measured.
type serverCPU struct {
	c     *redis.Client
	start float64 // seconds, at begin; < 0 when the server does not tell
}

// used returns the server's CPU time so far, in seconds, or -1 when it
// does not report it (miniredis refuses INFO CPU).
func (s *serverCPU) used(b *testing.B) float64 {
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
func (s *serverCPU) begin(b *testing.B) {
	if s.c != nil {
		s.start = s.used(b)
	}
}

// report reports the server's CPU time since begin, per op, in µs, as
// redis-cpu-us/op.
func (s *serverCPU) report(b *testing.B, ops int) {
	if s.c == nil || s.start < 0 || ops == 0 {
		return
	}
	if end := s.used(b); end >= 0 {
		b.ReportMetric((end-s.start)*1e6/float64(ops), "redis-cpu-us/op")
	}
}
