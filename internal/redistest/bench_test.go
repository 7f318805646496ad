package redistest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestBenchLockUnlock_reports_commands_per_cycle(t *testing.T) {
	c, name := newQueueLock(t)
	counter := CountCommands(c)
	r := testing.Benchmark(func(b *testing.B) {
		BenchLockUnlock(b, &queueLock{c: c, name: name}, counter)
	})
	// BLPOP and INCR to lock, RPUSH to unlock.
	if r.N == 0 || r.Extra["cmds/op"] != 3 {
		t.Fatalf("N = %d, cmds/op = %v; want 3 commands per cycle", r.N, r.Extra["cmds/op"])
	}
	if r.Extra["p50-ms"] <= 0 || r.Extra["p99-ms"] < r.Extra["p50-ms"] {
		t.Fatalf("metrics %v; want a positive p50-ms and a p99-ms no smaller", r.Extra)
	}
	if _, ok := r.Extra["redis-cpu-us/op"]; ok {
		t.Fatalf("metrics %v; want no redis-cpu-us/op from miniredis, which does not report it", r.Extra)
	}
	if _, ok := processCPU(); ok && r.Extra["client-cpu-us/op"] <= 0 {
		t.Fatalf("metrics %v; want a positive client-cpu-us/op", r.Extra)
	}
}

func TestBenchLockUnlock_reports_the_servers_cpu_per_cycle(t *testing.T) {
	c := StartServer(t).Client(t)
	name := Unique(t)
	if err := c.RPush(Ctx(t, queryTimeout), queueKey(name), "x").Err(); err != nil {
		t.Fatal(err)
	}
	counter := CountCommands(c)
	r := testing.Benchmark(func(b *testing.B) {
		BenchLockUnlock(b, &queueLock{c: c, name: name}, counter)
	})
	// The INFO calls that measure it are not counted as the lock's.
	if r.N == 0 || r.Extra["cmds/op"] != 3 {
		t.Fatalf("N = %d, cmds/op = %v; want 3 commands per cycle", r.N, r.Extra["cmds/op"])
	}
	if us := r.Extra["redis-cpu-us/op"]; us <= 0 {
		t.Fatalf("metrics %v; want a positive redis-cpu-us/op", r.Extra)
	}
	// The same 3 commands ran on the server, none of them in a script.
	if calls := r.Extra["redis-calls/op"]; calls != 3 {
		t.Fatalf("metrics %v; want 3 redis-calls/op", r.Extra)
	}
}

// scriptLock runs a script of two calls to lock and one of one call to
// unlock.
type scriptLock struct {
	c   *redis.Client
	key string
}

var (
	scriptLockLock   = redis.NewScript("redis.call('set', KEYS[1], 1) return redis.call('get', KEYS[1])")
	scriptLockUnlock = redis.NewScript("return redis.call('del', KEYS[1])")
)

func (l scriptLock) Lock(ctx context.Context) error {
	return scriptLockLock.Run(ctx, l.c, []string{l.key}).Err()
}

func (l scriptLock) Unlock(ctx context.Context) error {
	return scriptLockUnlock.Run(ctx, l.c, []string{l.key}).Err()
}

func TestBenchLockUnlock_counts_the_calls_of_scripts_not_the_scripts(t *testing.T) {
	c := StartServer(t).Client(t)
	counter := CountCommands(c)
	r := testing.Benchmark(func(b *testing.B) {
		BenchLockUnlock(b, scriptLock{c: c, key: Unique(t)}, counter)
	})
	if r.Extra["cmds/op"] != 2 || r.Extra["redis-calls/op"] != 3 {
		t.Fatalf("metrics %v; want 2 cmds/op (the scripts) and 3 redis-calls/op (what they call)", r.Extra)
	}
}

func TestBenchContended_shares_b_N_acquisitions(t *testing.T) {
	c, name := newQueueLock(t)
	counter := CountCommands(c)
	var waits []time.Duration
	var n int
	r := testing.Benchmark(func(b *testing.B) {
		waits = BenchContended(b, 4, 0, func() Locker { return &queueLock{c: c, name: name} }, counter)
		n = b.N
	})
	if len(waits) != n || n == 0 {
		t.Fatalf("%d waits for b.N = %d acquisitions", len(waits), n)
	}
	if r.Extra["cmds/acq"] != 3 || r.Extra["acq/s"] <= 0 {
		t.Fatalf("metrics %v; want 3 cmds/acq and a positive acq/s", r.Extra)
	}
	if _, ok := processCPU(); ok && r.Extra["client-cpu-us/acq"] <= 0 {
		t.Fatalf("metrics %v; want a positive client-cpu-us/acq", r.Extra)
	}
}

func TestReportWaits_reports_p50_and_p99_in_ms(t *testing.T) {
	var waits []time.Duration
	for i := 100; i >= 1; i-- { // unsorted
		waits = append(waits, time.Duration(i)*time.Millisecond)
	}
	r := testing.Benchmark(func(b *testing.B) { ReportWaits(b, slices.Clone(waits)) })
	if r.Extra["p50-ms"] != 50 || r.Extra["p99-ms"] != 99 {
		t.Fatalf("metrics %v; want p50-ms 50 and p99-ms 99", r.Extra)
	}
	r = testing.Benchmark(func(b *testing.B) { ReportWaits(b, nil) })
	if len(r.Extra) != 0 {
		t.Fatalf("metrics %v for no waits; want none", r.Extra)
	}
}

func TestFloor_runs_one_script_per_call(t *testing.T) {
	_, c := Mini(t)
	counter := CountCommands(c)
	f := Floor{C: c}
	ctx := Ctx(t, queryTimeout)
	if err := f.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// The first call may load the script (EVALSHA, then EVAL on NOSCRIPT).
	counter.Reset()
	if err := f.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if counter.Total() != 2 || counter.Scripts() != 2 {
		t.Fatalf("a cycle sent %d commands, %d scripts; want 2 scripts", counter.Total(), counter.Scripts())
	}
}
