package rwlock_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestForceUnlock_wakes_every_waiter checks that ForceUnlock wakes the
// readers and the writer waiting in other processes, so that they get the
// lock at once instead of sleeping until the removed holds' 30 s leases
// would have ended (or, for the writer, its next intent refresh, 20 s on).
func TestForceUnlock_wakes_every_waiter(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		name := redistest.Unique(t)
		admin := rwlock.New(redistest.Lockkit(t, c), name)
		force := func() {
			t.Helper()
			if ok, err := admin.ForceUnlock(redistest.Ctx(t, waitTimeout)); !ok || err != nil {
				t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
			}
		}

		// Readers of two processes wait behind a writer.
		w := rwlock.New(redistest.Lockkit(t, c), name)
		redistest.MustLock(t, w)
		var readers []*rwlock.RWMutex
		var reads []<-chan error
		for range 2 {
			lc := redistest.Lockkit(t, c)
			r := rwlock.New(lc, name)
			readers = append(readers, r)
			reads = append(reads, async(t, func() error { return r.RLock(redistest.Ctx(t, spanTimeout)) }))
			redistest.Eventually(t, waitTimeout, "the reader to wait", func() bool {
				return lc.Notifier().Sleeping(channel(lc, name, "ch")) == 1
			})
		}
		force()
		for i, got := range reads {
			if err := redistest.Receive(t, got, waitTimeout, "a waiting RLock after ForceUnlock"); err != nil {
				t.Fatalf("reader %d: RLock = %v", i, err)
			}
		}
		redistest.WantErr(t, w.Unlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrLost)

		// A writer of another process waits behind the readers.
		wc := redistest.Lockkit(t, c)
		w2 := rwlock.New(wc, name, lockkit.WithWatchdogTimeout(time.Minute)) // its intent refreshed every 20 s
		wrote := async(t, func() error { return w2.Lock(redistest.Ctx(t, spanTimeout)) })
		redistest.Eventually(t, waitTimeout, "the writer to wait", func() bool {
			return wc.Notifier().Sleeping(writersChannel(wc, name)) == 1
		})
		force()
		if err := redistest.Receive(t, wrote, waitTimeout, "a waiting Lock after ForceUnlock"); err != nil {
			t.Fatalf("Lock = %v", err)
		}
		for _, r := range readers {
			redistest.WantErr(t, r.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrLost)
		}
		redistest.MustUnlock(t, w2)
	})
}

// TestForceUnlock_leaves_waiting_writers_holding_back_readers checks that
// ForceUnlock removes holds, not intents: a writer waiting in Lock still
// waits, and new readers with writer preference stay out, until it has had
// the lock. The writer's attempts are held up so that it cannot take the
// freed lock meanwhile.
func TestForceUnlock_leaves_waiting_writers_holding_back_readers(t *testing.T) {
	sc := readHeldSilentWriter(t)
	defer sc.silent.Off()
	lc, name, r, w, silent := sc.readers, sc.name, sc.r, sc.w, sc.silent
	admin := rwlock.New(lc, name)
	wrote := async(t, func() error { return w.Lock(redistest.Ctx(t, spanTimeout)) })
	sc.writerWaits(t)

	silent.On()
	if ok, err := admin.ForceUnlock(redistest.Ctx(t, waitTimeout)); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
	}
	redistest.Eventually(t, waitTimeout, "the woken writer's attempt to be held up", func() bool { return silent.Held() == 1 })
	if s := state(t, admin); s.Mode != rwlock.Unlocked || s.WaitingWriters != 1 {
		t.Fatalf("state after ForceUnlock = %+v; want unlocked, the writer still waiting", s)
	}
	if tryRLock(t, rwlock.New(lc, name)) {
		t.Fatal("a new reader got in after ForceUnlock while a writer waits")
	}
	pending(t, wrote, "the waiting writer's Lock")

	silent.Off()
	if err := redistest.Receive(t, wrote, waitTimeout, "the writer's Lock"); err != nil {
		t.Fatalf("Lock = %v", err)
	}
	redistest.WantErr(t, r.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrLost)
	redistest.MustUnlock(t, w)
	wantAdmitted(t, rwlock.New(lc, name), "once the writer had the lock")
}
