package rwlock_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// load is a set of goroutines, each its own owner with a lock of its own,
// that loop taking the lock, holding it for hold and releasing it.
type load struct {
	t     testing.TB
	holds []atomic.Int64 // holds each goroutine has taken
	stop  chan struct{}
	wg    sync.WaitGroup
}

// startLoad starts a goroutine, called what and its index in errors, for
// each of locks.
func startLoad(t testing.TB, what string, locks []lockkit.Locker, hold time.Duration) *load {
	l := &load{t: t, holds: make([]atomic.Int64, len(locks)), stop: make(chan struct{})}
	// The loops' context outlives them: halt stops them first.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	for i, m := range locks {
		l.wg.Go(func() {
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				if err := m.Lock(ctx); err != nil {
					t.Errorf("%s %d: Lock: %v", what, i, err)
					return
				}
				l.holds[i].Add(1)
				time.Sleep(hold)
				if err := m.Unlock(ctx); err != nil {
					t.Errorf("%s %d: Unlock: %v", what, i, err)
					return
				}
			}
		})
	}
	t.Cleanup(func() {
		l.halt()
		cancel()
	})
	return l
}

// startReadLoad starts n readers of lock name, each its own owner, that
// loop taking the read lock, holding it for hold and releasing it, so that
// their holds overlap without a gap.
func startReadLoad(t testing.TB, c *lockkit.Client, name string, n int, hold time.Duration, opts ...lockkit.Option) *load {
	readers := make([]lockkit.Locker, n)
	for i := range readers {
		readers[i] = rwlock.New(c, name, opts...).RLocker()
	}
	return startLoad(t, "reader", readers, hold)
}

// snapshot returns how many holds each goroutine has taken.
func (l *load) snapshot() []int64 {
	s := make([]int64, len(l.holds))
	for i := range l.holds {
		s[i] = l.holds[i].Load()
	}
	return s
}

// since returns, per goroutine, the holds taken after snapshot s.
func (l *load) since(s []int64) []int64 {
	d := l.snapshot()
	for i := range d {
		d[i] -= s[i]
	}
	return d
}

// steady waits until every goroutine of a read load has taken min holds
// and, if there are several, the readers were seen overlapping.
func (l *load) steady(m *rwlock.RWMutex, min int64) {
	l.t.Helper()
	redistest.Eventually(l.t, waitTimeout, "the read load to run", func() bool {
		return slices.Min(l.snapshot()) >= min
	})
	if len(l.holds) > 1 {
		redistest.Eventually(l.t, waitTimeout, "readers to overlap", func() bool { return state(l.t, m).Readers > 1 })
	}
}

func (l *load) halt() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.wg.Wait()
}

// starvationBound is the most read holds a reader goroutine may take
// between a writer's Lock call and its return, with writer preference: the
// hold in progress when the writer's first attempt registers its intent,
// plus slack for the time between the call and that attempt.
const starvationBound = 3

func TestLock_not_starved_by_overlapping_readers(t *testing.T) {
	c := redistest.Lockkit(t, redistest.StartServer(t).Client(t))
	name := redistest.Unique(t)
	load := startReadLoad(t, c, name, 32, 5*time.Millisecond)
	w := rwlock.New(c, name)
	load.steady(w, 3)

	for round := range 3 {
		before := load.snapshot()
		start := time.Now()
		redistest.MustLock(t, w)
		waited := time.Since(start)
		during := load.since(before)
		if s := state(t, w); s.Mode != rwlock.WriteLocked || s.Readers != 0 {
			t.Fatalf("state under the writer = %+v", s)
		}
		redistest.MustUnlock(t, w)
		t.Logf("round %d: writer waited %v; read holds taken meanwhile per reader: max %d, total %d",
			round, waited, slices.Max(during), sum(during))
		if m := slices.Max(during); m > starvationBound {
			t.Fatalf("round %d: a reader took %d read holds while the writer waited, want at most %d",
				round, m, starvationBound)
		}
		load.steady(w, slices.Max(load.snapshot())+1) // readers resume after the writer
	}
}

// TestLock_without_writer_preference_waits_for_readers_to_stop: a writer
// made WithWriterPreference(false) registers no intent and holds no reader
// back; it gets the lock when the last reader leaves.
func TestLock_without_writer_preference_waits_for_readers_to_stop(t *testing.T) {
	c := redistest.Lockkit(t, redistest.StartServer(t).Client(t))
	name := redistest.Unique(t)
	off := rwlock.WithWriterPreference(false)
	// One reader holds the lock all along, as overlapping readers do
	// between them, so the writer never finds it free.
	first := rwlock.New(c, name, off)
	mustRLock(t, first)
	w := rwlock.New(c, name, off)
	done := async(t, func() error { return w.Lock(redistest.Ctx(t, time.Minute)) })
	redistest.Eventually(t, waitTimeout, "the writer to wait", func() bool {
		return c.Notifier().Sleeping(writersChannel(c, name)) == 1
	})
	// Far more read holds than the bound with preference come and go while
	// the writer waits: nothing holds the readers back.
	const many = 10 * starvationBound
	readers := make([]*rwlock.RWMutex, 4)
	for i := range readers {
		readers[i] = rwlock.New(c, name, off)
	}
	for range many {
		for _, r := range readers {
			mustRLock(t, r)
		}
		for _, r := range readers {
			mustRUnlock(t, r)
		}
	}
	pending(t, done, "Lock without writer preference while a reader holds the lock")
	if s := state(t, w); s.WaitingWriters != 0 {
		t.Fatalf("a writer without preference registered an intent: %+v", s)
	}
	// The last reader leaves: the writer gets the lock.
	mustRUnlock(t, first)
	if err := redistest.Receive(t, done, waitTimeout, "Lock once the readers stopped"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, w)
}

func TestRLock_not_starved_by_looping_writers(t *testing.T) {
	srv, c, name := redistest.OnServer(t)
	// Each writer has its own Client, so each waits at the head of its own
	// queue with a live intent, as writers in separate processes do.
	writers := make([]lockkit.Locker, 4)
	for i := range writers {
		writers[i] = rwlock.New(redistest.Lockkit(t, srv.Client(t)), name)
	}
	load := startLoad(t, "writer", writers, 2*time.Millisecond)
	writes := func() int64 { return sum(load.snapshot()) }
	redistest.Eventually(t, waitTimeout, "the writers to loop", func() bool { return writes() >= 10 })
	redistest.Eventually(t, waitTimeout, "an intent of a waiting writer", func() bool {
		return state(t, rwlock.New(c, name)).WaitingWriters >= 1
	})

	// Writers always wait, the one woken by each release with an intent,
	// so a new reader is never admitted by the intent rule alone. It gets
	// in because each write release clears the intents and wakes the
	// waiting readers.
	for round := range 5 {
		r := rwlock.New(c, name)
		before := writes()
		mustRLock(t, r)
		during := writes() - before
		mustRUnlock(t, r)
		t.Logf("round %d: reader got in after %d write holds", round, during)
	}
}

func sum(s []int64) int64 {
	var n int64
	for _, v := range s {
		n += v
	}
	return n
}

func TestWithWriterPreference_as_Client_default(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc, rwlock.WithWriterPreference(false))
	name := redistest.Unique(t)
	r, w, newcomer := rwlock.New(c, name), rwlock.New(c, name), rwlock.New(c, name)
	mustRLock(t, r)
	done := async(t, func() error { return w.Lock(redistest.Ctx(t, waitTimeout)) })
	redistest.Eventually(t, waitTimeout, "the writer to wait", func() bool {
		return c.Notifier().Sleeping(writersChannel(c, name)) == 1
	})
	// The Client's default turned intents off: the waiting writer holds
	// back no reader.
	if s := state(t, w); s.WaitingWriters != 0 {
		t.Fatalf("a writer without preference registered an intent: %+v", s)
	}
	wantAdmitted(t, newcomer, "by a writer without preference")
	mustRUnlock(t, r)
	if err := redistest.Receive(t, done, waitTimeout, "Lock after the readers left"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, w)

	// A lock's own option overrides the Client's default. Preference takes
	// both sides: the writer's intent, and readers that heed it.
	on := rwlock.New(c, name, rwlock.WithWriterPreference(true))
	newcomer = rwlock.New(c, name, rwlock.WithWriterPreference(true))
	mustRLock(t, r)
	if tryLock(t, on) {
		t.Fatal("writer got the lock under a reader")
	}
	wdone := async(t, func() error { return on.Lock(redistest.Ctx(t, waitTimeout)) })
	redistest.Eventually(t, waitTimeout, "the writer's intent", func() bool { return state(t, on).WaitingWriters == 1 })
	if tryRLock(t, newcomer) {
		t.Fatal("a new reader got in while a writer with preference waits")
	}
	mustRUnlock(t, r)
	if err := redistest.Receive(t, wdone, waitTimeout, "Lock after the reader left"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, on)
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

// BenchmarkLock_wait_under_64_readers measures how long a writer waits in
// Lock while 64 owners keep taking and releasing the read lock, each hold
// lasting 1 ms, and reports its p50 and p99 (as p50-ms and p99-ms) with
// the read rate achieved. (Without writer preference the writer would wait
// until the readers stopped, so there is no such variant.)
func BenchmarkLock_wait_under_64_readers(b *testing.B) {
	b.ReportAllocs()
	c := benchClient(b)
	name := redistest.Unique(b)
	load := startReadLoad(b, c, name, benchOwners, time.Millisecond)
	w := rwlock.New(c, name)
	redistest.Eventually(b, waitTimeout, "the read load to settle", func() bool {
		return sum(load.snapshot()) >= 10*benchOwners
	})
	waits := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start, readsBefore := time.Now(), sum(load.snapshot())
	for range b.N {
		t0 := time.Now()
		redistest.MustLock(b, w)
		waits = append(waits, time.Since(t0))
		redistest.MustUnlock(b, w)
		time.Sleep(time.Millisecond) // let the readers back in
	}
	elapsed := time.Since(start)
	b.StopTimer()
	load.halt()
	b.ReportMetric(float64(sum(load.snapshot())-readsBefore)/elapsed.Seconds(), "reads/s")
	redistest.ReportWaits(b, waits)
}
