package redistest

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// serverCost measures the CPU time a redis-server process spends, from its
// INFO CPU (used_cpu_sys + used_cpu_user): the server's whole cost, network
// included, which the load of other processes on a shared machine does
// not inflate as it does wall time; and the commands it runs, those its
// scripts call included (serverCalls), and the time its scripts take to
// run (scriptTime). A server that does not report them (miniredis) is not
// measured.
type serverCost struct {
	c       *redis.Client
	start   float64 // seconds, at begin; < 0 when the server does not tell
	calls   int64   // serverCalls at begin; < 0 when the server does not tell
	scripts int64   // scriptTime at begin; < 0 when the server does not tell
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
		s.scripts = scriptTime(s.c)
	}
}

// report reports, per op since begin, the server's CPU time in µs as
// redis-cpu-us/op, the commands it ran as redis-calls/op, and the time
// its scripts took, what they called included, in µs as
// redis-script-us/op: of redis-cpu-us/op, what is not network.
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
	if end := scriptTime(s.c); s.scripts >= 0 && end >= 0 {
		b.ReportMetric(float64(end-s.scripts)/float64(ops), "redis-script-us/op")
	}
}

// commandStat is one line of INFO commandstats: a command's name and how
// many times the server ran it.
var commandStat = regexp.MustCompile(`(?m)^cmdstat_([^:]+):calls=(\d+)`)

// notWork names the commands that serverCalls leaves out: the scripts
// themselves (what they call is counted), and what a client or the
// measurement sends besides a lock's work.
var notWork = []string{"eval", "script", "info", "config", "hello", "client", "ping", "select", "auth", "command"}

// serverCalls returns how many commands the server behind c has run so
// far, those its scripts called included and the scripts themselves not
// (see notWork), or -1 when it does not tell (miniredis has no INFO
// commandstats). Set beside the commands a client sends, it is the work a
// script does inside Redis.
func serverCalls(c *redis.Client) int64 {
	calls := commandCounts(c)
	if len(calls) == 0 {
		return -1
	}
	var n int64
	for name, k := range calls {
		if isWork(name) {
			n += k
		}
	}
	return n
}

// CommandCalls returns how many times the server behind c has run each
// command so far, by its name in INFO commandstats (lower case, such as
// "del" or "config|resetstat"), the commands that scripts call included;
// a command never run is not there. It fails t where the server does not
// tell (miniredis).
func CommandCalls(t testing.TB, c redis.Cmdable) map[string]int64 {
	t.Helper()
	calls := commandCounts(c)
	if calls == nil {
		t.Fatal("redistest: the server answers no INFO commandstats")
	}
	return calls
}

// commandCounts is CommandCalls, nil where the server does not tell.
func commandCounts(c redis.Cmdable) map[string]int64 {
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil || !strings.Contains(info, "# Commandstats") {
		return nil
	}
	calls := map[string]int64{}
	for _, m := range commandStat.FindAllStringSubmatch(info, -1) {
		calls[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
	}
	return calls
}

// scriptStat is one line of INFO commandstats of a script command (EVAL,
// EVALSHA and their _RO forms): the µs its runs took.
var scriptStat = regexp.MustCompile(`(?m)^cmdstat_eval(?:sha)?(?:_ro)?:calls=\d+,usec=(\d+)`)

// scriptTime returns the µs the server behind c has spent running scripts
// so far, the commands they call included, or -1 when it does not tell.
func scriptTime(c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil || !strings.Contains(info, "cmdstat_") {
		return -1
	}
	var us int64
	for _, m := range scriptStat.FindAllStringSubmatch(info, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		us += n
	}
	return us
}

// isWork reports whether the command name is a lock's work (see notWork).
func isWork(name string) bool {
	for _, p := range notWork {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	return true
}

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
