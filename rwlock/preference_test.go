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

// readLoad is a set of goroutines, each its own owner, that loop taking the
// read lock, holding it for hold and releasing it, so that their holds
// overlap without a gap.
type readLoad struct {
	t     *testing.T
	holds []atomic.Int64 // read holds each goroutine has taken
	stop  chan struct{}
	wg    sync.WaitGroup
}

func startReadLoad(t *testing.T, c *lockkit.Client, name string, n int, hold time.Duration, opts ...lockkit.Option) *readLoad {
	l := &readLoad{t: t, holds: make([]atomic.Int64, n), stop: make(chan struct{})}
	// The loops' context outlives them: halt stops them first.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	for i := range n {
		m := rwlock.New(c, name, opts...)
		l.wg.Go(func() {
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				if err := m.RLock(ctx); err != nil {
					t.Errorf("reader %d: RLock: %v", i, err)
					return
				}
				l.holds[i].Add(1)
				time.Sleep(hold)
				if err := m.RUnlock(ctx); err != nil {
					t.Errorf("reader %d: RUnlock: %v", i, err)
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

// snapshot returns how many holds each goroutine has taken.
func (l *readLoad) snapshot() []int64 {
	s := make([]int64, len(l.holds))
	for i := range l.holds {
		s[i] = l.holds[i].Load()
	}
	return s
}

// since returns, per goroutine, the holds taken after snapshot s.
func (l *readLoad) since(s []int64) []int64 {
	d := l.snapshot()
	for i := range d {
		d[i] -= s[i]
	}
	return d
}

// steady waits until every goroutine has taken min holds and the readers
// were seen overlapping.
func (l *readLoad) steady(m *rwlock.RWMutex, min int64) {
	l.t.Helper()
	redistest.Eventually(l.t, waitTimeout, "the read load to run", func() bool {
		return slices.Min(l.snapshot()) >= min
	})
	redistest.Eventually(l.t, waitTimeout, "readers to overlap", func() bool { return state(l.t, m).Readers > 1 })
}

func (l *readLoad) halt() {
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

func TestLock_without_writer_preference_waits_for_readers_to_stop(t *testing.T) {
	c := redistest.Lockkit(t, redistest.StartServer(t).Client(t))
	name := redistest.Unique(t)
	off := rwlock.WithWriterPreference(false)
	load := startReadLoad(t, c, name, 32, 5*time.Millisecond, off)
	w := rwlock.New(c, name, off)
	load.steady(w, 3)

	before := load.snapshot()
	start := time.Now()
	done := async(t, func() error { return w.Lock(redistest.Ctx(t, time.Minute)) })
	// Far more read holds than the bound with preference go by...
	const many = 10 * starvationBound
	redistest.Eventually(t, waitTimeout, "readers to take many holds", func() bool {
		return slices.Min(load.since(before)) >= many
	})
	// ...and the writer is still waiting: readers keep overlapping.
	pending(t, done, "Lock without writer preference under steady reads")
	if s := state(t, w); s.WaitingWriters != 0 {
		t.Fatalf("a writer without preference registered an intent: %+v", s)
	}
	during := load.since(before)
	load.halt()
	if err := redistest.Receive(t, done, waitTimeout, "Lock once the readers stopped"); err != nil {
		t.Fatal(err)
	}
	t.Logf("without preference: writer waited %v, until the readers stopped; each reader took %d+ holds meanwhile",
		time.Since(start), slices.Min(during))
	redistest.MustUnlock(t, w)
}

func TestRLock_not_starved_by_looping_writers(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redistest.Lockkit(t, srv.Client(t))
	name := redistest.Unique(t)
	var writes atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Each writer has its own Client, so each waits at the head of its own
	// queue with a live intent, as writers in separate processes do.
	for i := range 4 {
		m := rwlock.New(redistest.Lockkit(t, srv.Client(t)), name)
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := m.Lock(ctx); err != nil {
					t.Errorf("writer %d: %v", i, err)
					return
				}
				writes.Add(1)
				time.Sleep(2 * time.Millisecond)
				if err := m.Unlock(ctx); err != nil {
					t.Errorf("writer %d: %v", i, err)
					return
				}
			}
		})
	}
	defer wg.Wait()
	defer close(stop)
	redistest.Eventually(t, waitTimeout, "the writers to loop", func() bool { return writes.Load() >= 10 })
	redistest.Eventually(t, waitTimeout, "intents of waiting writers", func() bool {
		return state(t, rwlock.New(c, name)).WaitingWriters >= 2
	})

	// Writers always wait, each with an intent, so a new reader is never
	// admitted by the intent rule alone. It gets in because each write
	// release clears the intents and wakes the waiting readers.
	for round := range 5 {
		r := rwlock.New(c, name)
		before := writes.Load()
		mustRLock(t, r)
		during := writes.Load() - before
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
