package rwlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestRLock_reentry_while_a_writer_of_another_Client_waits checks, against
// a real server, that a reader re-enters at once while a writer of another
// Client waits with its intent, that a re-entry whose reply is lost, or
// whose ctx ends before its reply comes, is cut back to what the reader
// knows it holds (the late one once its reply comes, before the next
// RUnlock), and that the writer gets the lock when, and only when, the
// reader's last RUnlock returns.
func TestRLock_reentry_while_a_writer_of_another_Client_waits(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	drop := &redistest.DropReply{Match: isScript}
	silent := &redistest.Silence{Match: isScript, Max: time.Minute}
	t.Cleanup(silent.Off)
	rc.AddHook(drop)
	rc.AddHook(silent)
	readers, writers := redistest.Lockkit(t, rc), redistest.Lockkit(t, srv.Client(t))
	name := redistest.Unique(t)
	// The reader's lease outlasts the test: no renewal meets the hooks.
	r, w := rwlock.New(readers, name, longLease), rwlock.New(writers, name)
	mustRLock(t, r)
	token := r.RToken()
	wrote := async(t, func() error { return w.Lock(redistest.Ctx(t, spanTimeout)) })
	redistest.Eventually(t, waitTimeout, "the writer to wait with its intent", func() bool {
		return writers.Notifier().Sleeping(writersChannel(writers, name)) == 1 && state(t, r).WaitingWriters == 1
	})
	if tryRLock(t, rwlock.New(readers, name)) {
		t.Fatal("a new reader got in while the writer waits")
	}

	// No deadline: a re-entry that waited for the writer would hang.
	reentered := async(t, func() error { return r.RLock(t.Context()) })
	if err := redistest.Receive(t, reentered, waitTimeout, "the reader's re-entry"); err != nil {
		t.Fatalf("re-entry while the writer waits = %v", err)
	}
	wantState(t, r, rwlock.ReadLocked, 1, 0, 2)

	drop.Arm()
	redistest.WantErr(t, r.RLock(redistest.Ctx(t, waitTimeout)), redistest.ErrReplyDropped)
	wantState(t, r, rwlock.ReadLocked, 1, 0, 2)

	silent.On()
	short, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	late := async(t, func() error { return r.RLock(short) })
	redistest.WantErr(t, redistest.Receive(t, late, waitTimeout, "the re-entry against a silent server"),
		lockkit.ErrNotObtained, context.DeadlineExceeded)
	silent.Off() // the re-entry runs now, and is cut back
	// RUnlock waits until the late re-entry is settled, then releases one.
	mustRUnlock(t, r)
	if r.RToken() != token || redistest.Closed(r.RLost()) {
		t.Fatalf("the read hold changed: token %d -> %d, lost: %v", token, r.RToken(), redistest.Closed(r.RLost()))
	}
	wantState(t, r, rwlock.ReadLocked, 1, 0, 1)
	pending(t, wrote, "the writer's Lock while the reader still holds")
	mustRUnlock(t, r)
	if err := redistest.Receive(t, wrote, waitTimeout, "the writer's Lock after the reader's last RUnlock"); err != nil {
		t.Fatalf("writer's Lock = %v", err)
	}
	redistest.WantErr(t, r.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
	redistest.MustUnlock(t, w)
	redistest.AssertClean(t, srv.Client(t), name)
}
