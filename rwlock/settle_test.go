package rwlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// An Unlock or RUnlock whose release was never sent, and which is never
// called again (a deferred call whose error is dropped): the lock settles
// it in the background, so that the others get the lock long before the
// lease the watchdog would renew for as long as the owner lives, and the
// next call returns the outcome.

// longLease keeps a hold renewed for longer than any test runs: only a
// release ends it.
var longLease = lockkit.WithWatchdogTimeout(5 * time.Minute)

// inDoubt is a lock of a new server on two Clients: held, on a Client
// whose next script command refuse refuses to send once armed, with a
// lease that only a release ends, and other, on a Client of its own.
type inDoubt struct {
	srv         *redistest.Server
	name        string
	held, other *rwlock.RWMutex
	others      *lockkit.Client // other's Client
	refuse      *redistest.RefuseSend
}

// newInDoubt starts a server and returns a lock of it on two Clients, as
// inDoubt describes.
func newInDoubt(t *testing.T) inDoubt {
	t.Helper()
	d := inDoubt{srv: redistest.StartServer(t), name: redistest.Unique(t), refuse: &redistest.RefuseSend{Match: isScript}}
	rc := d.srv.Client(t)
	rc.AddHook(d.refuse)
	d.others = redistest.Lockkit(t, d.srv.Client(t))
	d.held, d.other = rwlock.New(redistest.Lockkit(t, rc), d.name, longLease), rwlock.New(d.others, d.name)
	return d
}

// refusedRelease calls release, whose script h refuses to send, and fails
// the test unless it returned an error after the refusal.
func refusedRelease(t *testing.T, h *redistest.RefuseSend, what string, release func(context.Context) error) {
	t.Helper()
	h.Arm()
	if err := release(redistest.Ctx(t, waitTimeout)); err == nil || h.Armed() {
		t.Fatalf("%s whose release was not sent = %v (refused: %v); want an error", what, err, !h.Armed())
	}
}

// TestRUnlock_in_doubt_never_called_again_frees_the_lock_for_a_waiting_writer
// checks that the last RUnlock of a read hold, failed before it reached
// the server, is settled in the background: the writer waiting on another
// Client gets the lock, though the reader's hold would be renewed for
// minutes, and the reader's next RUnlock returns the outcome (nil), with
// its read hold ended and no loss reported.
func TestRUnlock_in_doubt_never_called_again_frees_the_lock_for_a_waiting_writer(t *testing.T) {
	d := newInDoubt(t)
	srv, refuse, writers, name, r, w := d.srv, d.refuse, d.others, d.name, d.held, d.other
	mustRLock(t, r)
	wrote := async(t, func() error { return w.Lock(redistest.Ctx(t, spanTimeout)) })
	redistest.Eventually(t, waitTimeout, "the writer to wait", func() bool {
		return writers.Notifier().Sleeping(writersChannel(writers, name)) == 1
	})
	lost := r.RContext(context.Background())

	refusedRelease(t, refuse, "RUnlock", r.RUnlock)
	if err := redistest.Receive(t, wrote, waitTimeout, "the writer's Lock after an RUnlock in doubt never called again"); err != nil {
		t.Fatalf("writer's Lock = %v, want the lock well within the reader's lease", err)
	}
	redistest.Eventually(t, waitTimeout, "the reader's hold to end", func() bool { return r.RToken() == 0 })
	if redistest.Closed(r.RLost()) {
		t.Fatal("the release settled in the background closed RLost")
	}
	redistest.Receive(t, lost.Done(), waitTimeout, "the read context")
	redistest.WantErr(t, context.Cause(lost), lockkit.ErrNotHeld)
	if err := r.RUnlock(redistest.Ctx(t, waitTimeout)); err != nil {
		t.Fatalf("RUnlock after its release was settled = %v, want nil", err)
	}
	redistest.WantErr(t, r.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
	redistest.MustUnlock(t, w)
	redistest.AssertClean(t, srv.Client(t), name)
}

// TestUnlock_of_a_downgrade_in_doubt_never_called_again_keeps_the_read_hold
// checks the same for the write hold of a writer that also reads: the
// Unlock settled in the background ends the write hold only, so that the
// reader waiting on another Client gets in beside the owner, who still
// reads with its token and no loss reported; its next Unlock returns nil,
// and the lock is free once both readers leave.
func TestUnlock_of_a_downgrade_in_doubt_never_called_again_keeps_the_read_hold(t *testing.T) {
	d := newInDoubt(t)
	srv, refuse, readers, name, m, r := d.srv, d.refuse, d.others, d.name, d.held, d.other
	redistest.MustLock(t, m)
	mustRLock(t, m)
	rtoken := m.RToken()
	read := async(t, func() error { return r.RLock(redistest.Ctx(t, spanTimeout)) })
	redistest.Eventually(t, waitTimeout, "the reader to wait", func() bool {
		return readers.Notifier().Sleeping(channel(readers, name, "ch")) == 1
	})

	refusedRelease(t, refuse, "Unlock", m.Unlock)
	if err := redistest.Receive(t, read, waitTimeout, "the reader's RLock after an Unlock in doubt never called again"); err != nil {
		t.Fatalf("reader's RLock = %v, want the read lock beside the downgraded owner", err)
	}
	redistest.Eventually(t, waitTimeout, "the write hold to end", func() bool { return m.Token() == 0 })
	wantState(t, m, rwlock.ReadLocked, 2, 0, 1)
	if m.RToken() != rtoken || redistest.Closed(m.RLost()) || redistest.Closed(m.Lost()) {
		t.Fatalf("after the settled Unlock RToken = %d (want %d), RLost closed: %v, Lost closed: %v",
			m.RToken(), rtoken, redistest.Closed(m.RLost()), redistest.Closed(m.Lost()))
	}
	if err := m.Unlock(redistest.Ctx(t, waitTimeout)); err != nil {
		t.Fatalf("Unlock after its release was settled = %v, want nil", err)
	}
	redistest.WantErr(t, m.Unlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
	mustRUnlock(t, m)
	mustRUnlock(t, r)
	redistest.AssertClean(t, srv.Client(t), name)
}
