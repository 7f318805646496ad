package rwlock_test

import (
	"context"
	_ "embed"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// childTimeout bounds how long a test waits for a child's next line.
const childTimeout = 2 * time.Minute

//go:embed testdata/check.lua
var checkLua string

var checkScript = redis.NewScript(checkLua)

// checker records who is inside lock name, in Redis, so that holders in
// every process check the invariant against one shared state.
type checker struct {
	c    redis.UniversalClient
	keys []string
}

func newChecker(c redis.UniversalClient, name string) checker {
	k := func(s string) string { return "check:{" + name + "}:" + s }
	return checker{c, []string{k("readers"), k("writers"), k("violations"), k("maxreaders")}}
}

// step applies op and reports a violation as an error.
func (ck checker) step(ctx context.Context, op string) error {
	bad, err := checkScript.Run(ctx, ck.c, ck.keys, op).Int()
	if err != nil {
		return err
	}
	if bad == 1 {
		return fmt.Errorf("invariant broken after %q", op)
	}
	return nil
}

// totals returns the violations counted and the most readers seen at once.
func (ck checker) totals(ctx context.Context) (violations, maxReaders int, err error) {
	vals, err := ck.c.MGet(ctx, ck.keys[2], ck.keys[3]).Result()
	if err != nil {
		return 0, 0, err
	}
	n := func(v any) int {
		s, _ := v.(string)
		i, _ := strconv.Atoi(s)
		return i
	}
	return n(vals[0]), n(vals[1]), nil
}

// hammerChild runs args[2] goroutines, each its own owner, doing args[3]
// random operations on lock args[1] (reads, re-entrant reads, writes and
// downgrades) under the checker, once the test sends "go". Violations are
// counted in Redis; any error ends the child with status 1.
func hammerChild(args []string) {
	c := redistest.SpecClient(args[0])
	defer c.Close()
	lc := lockkit.New(c)
	defer lc.Close()
	name := args[1]
	goroutines, _ := strconv.Atoi(args[2])
	ops, _ := strconv.Atoi(args[3])
	ck := newChecker(c, name)
	redistest.ChildPrintf("ready")
	for line := range redistest.ChildLines() {
		if line == "go" {
			break
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	var reads, writes, downgrades atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(g)))
			m := rwlock.New(lc, name)
			for range ops {
				var err error
				switch p := rng.IntN(10); {
				case p < 7:
					err = hammerRead(ctx, m, ck, rng)
					reads.Add(1)
				case p < 9:
					err = hammerWrite(ctx, m, ck, rng)
					writes.Add(1)
				default:
					err = hammerDowngrade(ctx, m, ck, rng)
					downgrades.Add(1)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		redistest.ChildFatalf("hammer: %v", <-errs)
	}
	redistest.ChildPrintf("done reads=%d writes=%d downgrades=%d", reads.Load(), writes.Load(), downgrades.Load())
}

// pause holds the lock for up to max, so that holders overlap.
func pause(rng *rand.Rand, max time.Duration) {
	time.Sleep(time.Duration(rng.Int64N(int64(max))))
}

func hammerRead(ctx context.Context, m *rwlock.RWMutex, ck checker, rng *rand.Rand) error {
	if err := m.RLock(ctx); err != nil {
		return err
	}
	if err := ck.step(ctx, "r+"); err != nil {
		return err
	}
	if rng.IntN(4) == 0 { // re-enter, even while a writer waits
		if err := m.RLock(ctx); err != nil {
			return fmt.Errorf("re-entrant RLock: %w", err)
		}
		if err := m.RUnlock(ctx); err != nil {
			return err
		}
	}
	pause(rng, 2*time.Millisecond)
	if err := ck.step(ctx, "r-"); err != nil {
		return err
	}
	return m.RUnlock(ctx)
}

func hammerWrite(ctx context.Context, m *rwlock.RWMutex, ck checker, rng *rand.Rand) error {
	if err := m.Lock(ctx); err != nil {
		return err
	}
	if err := ck.step(ctx, "w+"); err != nil {
		return err
	}
	pause(rng, time.Millisecond)
	if err := ck.step(ctx, "w-"); err != nil {
		return err
	}
	return m.Unlock(ctx)
}

func hammerDowngrade(ctx context.Context, m *rwlock.RWMutex, ck checker, rng *rand.Rand) error {
	if err := m.Lock(ctx); err != nil {
		return err
	}
	if err := ck.step(ctx, "w+"); err != nil {
		return err
	}
	if err := m.RLock(ctx); err != nil {
		return fmt.Errorf("RLock by the writer: %w", err)
	}
	if err := ck.step(ctx, "w>r"); err != nil {
		return err
	}
	if err := m.Unlock(ctx); err != nil {
		return err
	}
	pause(rng, 2*time.Millisecond)
	if err := ck.step(ctx, "r-"); err != nil {
		return err
	}
	return m.RUnlock(ctx)
}

// runInvariant runs the hammer in 3 processes × 16 goroutines against c and
// checks, with lc (a Client of c), that the invariant held and that readers
// overlapped.
func runInvariant(t *testing.T, c redis.UniversalClient, lc *lockkit.Client) {
	const processes, goroutines, ops = 3, 16, 20
	name := redistest.Unique(t)
	children := make([]*redistest.Child, processes)
	for i := range children {
		children[i] = redistest.StartChild(t, "rw-hammer", redistest.ClientSpec(c), name,
			strconv.Itoa(goroutines), strconv.Itoa(ops))
	}
	for _, ch := range children {
		ch.WaitLine(t, "ready", childTimeout)
	}
	for _, ch := range children {
		ch.Send(t, "go")
	}
	for _, ch := range children {
		t.Log(ch.WaitLine(t, "done", childTimeout))
		ch.Wait(t, childTimeout)
	}
	ctx := redistest.Ctx(t, waitTimeout)
	violations, maxReaders, err := newChecker(c, name).totals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if violations != 0 {
		t.Fatalf("%d invariant violations", violations)
	}
	if maxReaders < 2 {
		t.Fatalf("at most %d reader inside at once: readers never overlapped", maxReaders)
	}
	t.Logf("readers inside at once: up to %d", maxReaders)
	if s := state(t, rwlock.New(lc, name)); s.Mode != rwlock.Unlocked || s.WaitingWriters != 0 {
		t.Fatalf("state after every process finished = %+v; want unlocked, no intent", s)
	}
}

func TestInvariant_across_processes(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	runInvariant(t, rc, redistest.Lockkit(t, rc))
}

func TestInvariant_across_processes_on_cluster(t *testing.T) {
	rc := redistest.StartCluster(t).Client(t)
	c := redistest.Lockkit(t, rc)
	runInvariant(t, rc, c)

	// On the same cluster: the watchdog keeps per-hold leases alive through
	// its pipelined renewals, which go to the lock's slot.
	name := redistest.Unique(t)
	const lease = 300 * time.Millisecond
	r1 := rwlock.New(c, name, lockkit.WithWatchdogTimeout(lease))
	r2 := rwlock.New(c, name, lockkit.WithWatchdogTimeout(lease))
	mustRLock(t, r1)
	mustRLock(t, r2)
	renewals, last := 0, time.Duration(0)
	redistest.Eventually(t, waitTimeout, "the read leases to be renewed several times", func() bool {
		ttl := state(t, r1).TTL
		if ttl > last {
			renewals++
		}
		last = ttl
		return renewals >= 6 // well past the 300 ms lease
	})
	if s := state(t, r1); s.Readers != 2 {
		t.Fatalf("state = %+v; want both readers still holding", s)
	}
	mustRUnlock(t, r1)
	mustRUnlock(t, r2)
	w := rwlock.New(c, name)
	redistest.MustLock(t, w)
	redistest.MustUnlock(t, w)
}

func TestChecker_reports_violations(t *testing.T) {
	_, c := redistest.Mini(t)
	ck := newChecker(c, redistest.Unique(t))
	ctx := redistest.Ctx(t, waitTimeout)
	for _, tc := range []struct {
		op  string
		bad bool
	}{
		{"r+", false}, {"r+", false}, {"w+", true}, {"w-", false}, {"r-", false}, {"r-", false},
		{"w+", false}, {"w+", true}, {"w-", false}, {"w>r", false}, {"r-", false}, {"r-", true},
	} {
		if err := ck.step(ctx, tc.op); (err != nil) != tc.bad {
			t.Fatalf("step %q = %v, want violation %v", tc.op, err, tc.bad)
		}
	}
	if v, maxReaders, err := ck.totals(ctx); err != nil || v != 3 || maxReaders != 2 {
		t.Fatalf("totals = %d, %d, %v; want 3 violations, 2 readers at most", v, maxReaders, err)
	}
}

// readerChild takes the read lock args[1] with a watchdog timeout of
// args[2], prints "held", and waits to be killed.
func readerChild(args []string) {
	timeout, _ := time.ParseDuration(args[2])
	m := rwlock.New(lockkit.New(redistest.SpecClient(args[0])), args[1], lockkit.WithWatchdogTimeout(timeout))
	if err := m.RLock(context.Background()); err != nil {
		redistest.ChildFatalf("RLock: %v", err)
	}
	redistest.ChildPrintf("held %d", m.RToken())
	for range redistest.ChildLines() {
	}
	select {} // stdin closed: still hold until killed
}

// writerChild waits in Lock on lock args[1] with a watchdog timeout of
// args[2] (so its intent lasts that long unless refreshed) and prints
// "acquired" if it ever gets it.
func writerChild(args []string) {
	timeout, _ := time.ParseDuration(args[2])
	m := rwlock.New(lockkit.New(redistest.SpecClient(args[0])), args[1], lockkit.WithWatchdogTimeout(timeout))
	redistest.ChildPrintf("waiting")
	if err := m.Lock(context.Background()); err != nil {
		redistest.ChildFatalf("Lock: %v", err)
	}
	redistest.ChildPrintf("acquired")
	for range redistest.ChildLines() {
	}
}

func TestLock_after_reader_process_killed_within_lease(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	const lease = time.Second
	reader := redistest.StartChild(t, "rw-reader", redistest.ClientSpec(rc), name, lease.String())
	reader.WaitLine(t, "held", childTimeout)

	w := rwlock.New(c, name)
	done := async(t, func() error { return w.Lock(redistest.Ctx(t, time.Minute)) })
	redistest.Eventually(t, waitTimeout, "the writer to wait", func() bool { return state(t, w).WaitingWriters == 1 })
	// The reader's watchdog keeps its 1 s lease alive: let it renew a few
	// times before it dies, so the writer waits on a renewed hold.
	renewals := 0
	last := time.Duration(0)
	redistest.Eventually(t, waitTimeout, "the reader's lease to be renewed", func() bool {
		ttl := state(t, w).TTL
		if ttl > last {
			renewals++
		}
		last = ttl
		return renewals >= 3
	})
	pending(t, done, "Lock while the reader process holds the lock")
	killed := time.Now()
	reader.Kill(t)
	if err := redistest.Receive(t, done, waitTimeout, "Lock after the reader was killed"); err != nil {
		t.Fatal(err)
	}
	waited := time.Since(killed)
	t.Logf("writer acquired %v after the reader was killed (lease %v)", waited, lease)
	if waited > lease+time.Second {
		t.Fatalf("writer acquired %v after the kill, want within the reader's lease %v + 1s", waited, lease)
	}
	redistest.MustUnlock(t, w)
}

func TestRLock_after_waiting_writer_process_killed_within_intent(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	r := rwlock.New(c, name)
	mustRLock(t, r)
	const timeout = time.Second
	writer := redistest.StartChild(t, "rw-writer", redistest.ClientSpec(rc), name, timeout.String())
	writer.WaitLine(t, "waiting", childTimeout)
	intents := lockKey(name) + ":writers"
	redistest.Eventually(t, waitTimeout, "the writer's intent", func() bool { return state(t, r).WaitingWriters == 1 })
	// The waiting writer refreshes its 1 s intent while it waits.
	first, err := rc.ZRangeWithScores(redistest.Ctx(t, waitTimeout), intents, 0, -1).Result()
	if err != nil || len(first) != 1 {
		t.Fatalf("intents = %v, %v", first, err)
	}
	redistest.Eventually(t, waitTimeout, "the intent to be refreshed past its first deadline", func() bool {
		s, err := rc.ZScore(redistest.Ctx(t, waitTimeout), intents, first[0].Member.(string)).Result()
		return err == nil && s > first[0].Score+float64(timeout.Milliseconds())
	})
	newcomer := rwlock.New(c, name)
	if tryRLock(t, newcomer) {
		t.Fatal("a new reader got in while a writer waits")
	}
	killed := time.Now()
	writer.Kill(t)
	if err := newcomer.RLock(redistest.Ctx(t, waitTimeout)); err != nil {
		t.Fatal(err)
	}
	waited := time.Since(killed)
	t.Logf("new reader got in %v after the waiting writer was killed (intent %v)", waited, timeout)
	if waited > timeout+time.Second {
		t.Fatalf("new reader waited %v after the kill, want within the intent %v + 1s", waited, timeout)
	}
	mustRUnlock(t, newcomer)
	mustRUnlock(t, r)
}
