package rwlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// silentWriterScene is a lock read-held by r, of readers, and a writer w,
// of writers, on a server of its own; silent, once on, holds up the
// scripts of writers.
type silentWriterScene struct {
	readers, writers *lockkit.Client
	name             string
	r, w             *rwlock.RWMutex
	silent           *redistest.Silence
}

// readHeldSilentWriter sets up a silentWriterScene, its silent not on yet
// (the caller defers turning it off).
func readHeldSilentWriter(t *testing.T) silentWriterScene {
	t.Helper()
	srv := redistest.StartServer(t)
	sc := silentWriterScene{silent: &redistest.Silence{Match: isScript, Max: 2 * spanTimeout}}
	wc := srv.Client(t)
	wc.AddHook(sc.silent)
	sc.readers, sc.writers = redistest.Lockkit(t, srv.Client(t)), redistest.Lockkit(t, wc)
	sc.name = redistest.Unique(t)
	sc.r, sc.w = rwlock.New(sc.readers, sc.name), rwlock.New(sc.writers, sc.name)
	mustRLock(t, sc.r)
	return sc
}

// writerWaits waits until sc's writer, called to Lock, waits with its
// intent.
func (sc silentWriterScene) writerWaits(t *testing.T) {
	t.Helper()
	redistest.Eventually(t, waitTimeout, "the writer to wait with its intent", func() bool {
		return sc.writers.Notifier().Sleeping(writersChannel(sc.writers, sc.name)) == 1 && state(t, sc.r).WaitingWriters == 1
	})
}

// TestLock_of_a_waiting_writer_returns_by_its_deadline_against_a_silent_server
// checks Lock's promise for a writer that waits with an intent when the
// server stops answering: woken by the last reader's release, its attempt
// is held up, and Lock still returns when its ctx ends (waiting for the
// withdrawal of its intent CleanupGrace at most, not for the clean-up's
// own bound), matching ErrNotObtained and the ctx's error. Once the server
// answers, the writer holds nothing (its late acquire is undone) and
// readers get in at once, not when the intent would have lapsed (30 s).
func TestLock_of_a_waiting_writer_returns_by_its_deadline_against_a_silent_server(t *testing.T) {
	sc := readHeldSilentWriter(t)
	defer sc.silent.Off()
	readers, name, r, w, silent := sc.readers, sc.name, sc.r, sc.w, sc.silent
	ctx, cancel := context.WithCancel(redistest.Ctx(t, spanTimeout))
	defer cancel()
	wrote := async(t, func() error { return w.Lock(ctx) })
	sc.writerWaits(t)

	silent.On()
	mustRUnlock(t, r) // frees the lock and wakes the writer, whose attempt is held up
	redistest.Eventually(t, waitTimeout, "the woken writer's attempt to be held up", func() bool { return silent.Held() == 1 })
	start := time.Now()
	cancel()
	err := redistest.Receive(t, wrote, waitTimeout, "Lock against a silent server")
	took := time.Since(start)
	silent.Off() // at once: the withdrawal waits for the late attempt within the clean-up's bound
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.Canceled)
	if took >= core.CleanupTimeout {
		t.Errorf("Lock took %v to return after its ctx ended; want less than the clean-up's bound %v", took, core.CleanupTimeout)
	}

	newcomer := eventuallyAdmitted(t, readers, name, "a new reader to get in")
	redistest.Eventually(t, waitTimeout, "the writer's intent to be withdrawn", func() bool {
		s := state(t, w)
		return s.Readers == 1 && s.HoldCount == 0 && s.WaitingWriters == 0
	})
	mustRUnlock(t, newcomer)
	redistest.WantErr(t, w.Unlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
	wantWriterGets(t, readers, name)
}
