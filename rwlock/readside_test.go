package rwlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// The conformance suite runs on the write side only; these are the same
// promises made for the read side (RLock, TryRLock, RUnlock, RContext),
// which readers sharing the lock keep apart from the write side's tests.

// spanTimeout is the ctx of a call that waits across several steps of a
// test, each bounded by waitTimeout: the call must not give up first on a
// loaded machine.
const spanTimeout = time.Minute

// isScript selects the commands that run the lock's scripts.
func isScript(cmd redis.Cmder) bool {
	n := cmd.Name()
	return n == "evalsha" || n == "eval"
}

// wantWriterGets waits until a new writer gets the lock name of c, and
// releases it: no read hold is left.
func wantWriterGets(t testing.TB, c *lockkit.Client, name string) {
	t.Helper()
	w := rwlock.New(c, name, rwlock.WithWriterPreference(false))
	redistest.Eventually(t, waitTimeout, "a writer to get the lock", func() bool {
		ok, err := w.TryLock(redistest.Ctx(t, waitTimeout))
		return ok && err == nil
	})
	redistest.MustUnlock(t, w)
}

// TestRLock_ctx_deadline_matches_both_errors_and_holds_nothing checks what
// RLock promises when its ctx ends while a writer holds the lock: the error
// matches ErrNotObtained and the ctx's error, and the reader holds nothing
// (RUnlock says ErrNotHeld, and a writer gets the lock once the holder
// leaves).
func TestRLock_ctx_deadline_matches_both_errors_and_holds_nothing(t *testing.T) {
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
		w, r := rwlock.New(lc, name), rwlock.New(lc, name)
		redistest.MustLock(t, w)
		c, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		redistest.WantErr(t, r.RLock(c), lockkit.ErrNotObtained, context.DeadlineExceeded)
		ended, cancel2 := context.WithCancel(t.Context())
		cancel2()
		redistest.WantErr(t, r.RLock(ended), lockkit.ErrNotObtained, context.Canceled)
		redistest.WantErr(t, r.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
		if s := state(t, r); s.RHoldCount != 0 || s.Readers != 0 {
			t.Fatalf("state after the failed RLocks = %+v; want no reader", s)
		}
		redistest.MustUnlock(t, w)
		if !tryLock(t, rwlock.New(lc, name)) {
			t.Fatal("a writer was refused after the failed RLocks: a read hold was left")
		}
	})
}

// TestRUnlock_with_ended_ctx_releases checks that RUnlock releases the read
// hold even when its ctx has ended, as Unlock does.
func TestRUnlock_with_ended_ctx_releases(t *testing.T) {
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
		r := rwlock.New(lc, name)
		mustRLock(t, r)
		ended, cancel := context.WithCancel(t.Context())
		cancel()
		if err := r.RUnlock(ended); err != nil {
			t.Fatalf("RUnlock with an ended ctx = %v, want nil", err)
		}
		if !tryLock(t, rwlock.New(lc, name)) {
			t.Fatal("a writer was refused after RUnlock with an ended ctx")
		}
	})
}

// TestRUnlock_retry_after_lost_reply_unlocks_once checks that RUnlock is
// safe to call again after an error: when the reply of a release is lost,
// the retry settles it without releasing a second read hold, and the last
// retry reports success, not a loss.
func TestRUnlock_retry_after_lost_reply_unlocks_once(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		drop := &redistest.DropReply{Match: isScript}
		c.AddHook(drop)
		lc, name := redistest.Lockkit(t, c), redistest.Unique(t)
		r := rwlock.New(lc, name)
		mustRLock(t, r)
		mustRLock(t, r)
		drop.Arm()
		if err := r.RUnlock(redistest.Ctx(t, waitTimeout)); err == nil {
			t.Fatal("RUnlock whose reply was dropped returned nil")
		}
		mustRUnlock(t, r)
		if s := state(t, r); s.RHoldCount != 1 {
			t.Fatalf("RHoldCount after a lost and a retried RUnlock of two = %d, want 1", s.RHoldCount)
		}
		drop.Arm()
		if err := r.RUnlock(redistest.Ctx(t, waitTimeout)); err == nil {
			t.Fatal("RUnlock whose reply was dropped returned nil")
		}
		if drop.Armed() {
			t.Fatal("the last release never reached the server")
		}
		mustRUnlock(t, r)
		if redistest.Closed(r.RLost()) {
			t.Fatal("a retried RUnlock closed RLost")
		}
		redistest.WantErr(t, r.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
		wantWriterGets(t, lc, name)
	})
}

// TestRContext_ends_with_the_read_hold checks that RContext is Context for
// the read hold: ended with ErrNotHeld when there is no read hold or
// RUnlock ends it, with ErrLost when the hold vanishes, and that a
// downgrade's Unlock ends the write hold's context but not the read one's.
func TestRContext_ends_with_the_read_hold(t *testing.T) {
	onBackends(t, func(t *testing.T, c redis.UniversalClient, lc *lockkit.Client, name string) {
		m := rwlock.New(lc, name, lockkit.WithWatchdogTimeout(time.Second))
		wantCause := func(ctx context.Context, want error, what string) {
			t.Helper()
			redistest.Receive(t, ctx.Done(), waitTimeout, what)
			redistest.WantErr(t, context.Cause(ctx), want)
		}
		wantCause(m.RContext(context.Background()), lockkit.ErrNotHeld, "the read context of no hold")

		// A downgrade: Unlock ends the write context, the read one lives on.
		redistest.MustLock(t, m)
		mustRLock(t, m)
		write, read := m.Context(context.Background()), m.RContext(context.Background())
		redistest.MustUnlock(t, m)
		wantCause(write, lockkit.ErrNotHeld, "the write context after Unlock")
		if read.Err() != nil {
			t.Fatalf("the read context ended with the write hold: %v", context.Cause(read))
		}
		mustRUnlock(t, m)
		wantCause(read, lockkit.ErrNotHeld, "the read context after RUnlock")

		mustRLock(t, m)
		lost := m.RContext(context.Background())
		if err := c.Del(t.Context(), lockKey(name), lockKey(name)+":leases").Err(); err != nil {
			t.Fatal(err)
		}
		wantCause(lost, lockkit.ErrLost, "the read context of a vanished hold")
		redistest.WantErr(t, m.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrLost)
	})
}

// TestClose_ends_read_holds_and_waiting_RLocks checks what closing the
// Client does to the read side: a held read lock's RLost closes and its
// RUnlock still frees it (reporting ErrClosed), and an RLock waiting
// behind a writer's intent returns ErrClosed.
func TestClose_ends_read_holds_and_waiting_RLocks(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, c redis.UniversalClient) {
		s := readerBehindIntent(t, c)
		if err := s.readers.Close(); err != nil {
			t.Fatal(err)
		}
		redistest.WantErr(t, redistest.Receive(t, s.read, waitTimeout, "the waiting RLock"), lockkit.ErrClosed)
		redistest.Receive(t, s.holder.RLost(), waitTimeout, "RLost after Close")
		redistest.WantErr(t, s.holder.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrClosed)
		if err := redistest.Receive(t, s.wrote, waitTimeout, "the writer's Lock"); err != nil {
			t.Fatalf("writer's Lock after the reader's Client closed = %v", err)
		}
		redistest.MustUnlock(t, s.writer)
	})
}

// TestRead_side_returns_within_ctx_against_a_silent_server checks that
// RLock, TryRLock and RUnlock honour their ctx while the server does not
// answer (each would otherwise wait the minute the server is silent), and
// that what their requests did when they ran at last is settled: the late
// read acquires are undone, and RUnlock called again releases once.
func TestRead_side_returns_within_ctx_against_a_silent_server(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		silent := &redistest.Silence{Match: isScript, Max: time.Minute}
		c.AddHook(silent)
		defer silent.Off()
		lc, name := redistest.Lockkit(t, c), redistest.Unique(t)
		r := rwlock.New(lc, name)
		short := func() context.Context {
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}

		silent.On()
		got := async(t, func() error { return r.RLock(short()) })
		redistest.WantErr(t, redistest.Receive(t, got, waitTimeout, "RLock against a silent server"),
			lockkit.ErrNotObtained, context.DeadlineExceeded)
		got = async(t, func() error {
			ok, err := r.TryRLock(short())
			if ok {
				t.Error("TryRLock against a silent server = true")
			}
			return err
		})
		redistest.WantErr(t, redistest.Receive(t, got, waitTimeout, "TryRLock against a silent server"), context.DeadlineExceeded)
		silent.Off()
		redistest.Eventually(t, waitTimeout, "the late read acquires to be undone", func() bool {
			s, err := r.State(redistest.Ctx(t, waitTimeout))
			return err == nil && s.Readers == 0
		})
		wantWriterGets(t, lc, name)

		mustRLock(t, r)
		silent.On()
		got = async(t, func() error { return r.RUnlock(short()) })
		redistest.WantErr(t, redistest.Receive(t, got, waitTimeout, "RUnlock against a silent server"), context.DeadlineExceeded)
		silent.Off()
		mustRUnlock(t, r)
		wantWriterGets(t, lc, name)
		redistest.WantErr(t, r.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
	})
}

// TestClose_withdraws_a_waiting_writers_intent checks that closing the
// Client of a writer waiting in Lock ends its Lock with ErrClosed and
// withdraws its intent, as a Lock whose ctx ended does, so that the
// readers it held back get in at once instead of when the intent lapses
// (the watchdog timeout, 30 s).
func TestClose_withdraws_a_waiting_writers_intent(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		s := readerBehindIntent(t, c)
		if err := s.writers.Close(); err != nil {
			t.Fatal(err)
		}
		redistest.WantErr(t, redistest.Receive(t, s.wrote, waitTimeout, "the Lock of the closed Client"), lockkit.ErrClosed)
		if err := redistest.Receive(t, s.read, waitTimeout, "the RLock held back by the writer"); err != nil {
			t.Fatalf("RLock after the writer's Client closed = %v", err)
		}
		if st := state(t, s.reader); st.WaitingWriters != 0 || st.Readers != 2 {
			t.Fatalf("state = %+v; want 2 readers and no waiting writer", st)
		}
		mustRUnlock(t, s.reader)
		mustRUnlock(t, s.holder)
	})
}

// intentScene is a reader held back by a writer's intent: a Client of the
// readers whose holder holds the read lock and whose reader waits in
// RLock, behind a writer of another Client waiting in Lock.
type intentScene struct {
	readers, writers *lockkit.Client
	holder, reader   *rwlock.RWMutex // of readers
	writer           *rwlock.RWMutex // of writers
	wrote, read      <-chan error    // the outcomes of the writer's Lock and the reader's RLock
}

// readerBehindIntent sets up an intentScene on c, on a lock of its own,
// and returns once the writer's intent is registered and the reader
// sleeps.
func readerBehindIntent(t *testing.T, c redis.UniversalClient) intentScene {
	t.Helper()
	name := redistest.Unique(t)
	s := intentScene{readers: redistest.Lockkit(t, c), writers: redistest.Lockkit(t, c)}
	s.holder, s.reader, s.writer = rwlock.New(s.readers, name), rwlock.New(s.readers, name), rwlock.New(s.writers, name)
	mustRLock(t, s.holder)
	s.wrote = async(t, func() error { return s.writer.Lock(redistest.Ctx(t, spanTimeout)) })
	redistest.Eventually(t, waitTimeout, "the writer's intent", func() bool { return state(t, s.writer).WaitingWriters == 1 })
	s.read = async(t, func() error { return s.reader.RLock(redistest.Ctx(t, spanTimeout)) })
	redistest.Eventually(t, waitTimeout, "the reader to wait", func() bool {
		return s.readers.Notifier().Sleeping(channel(s.readers, name, "ch")) == 1
	})
	return s
}
