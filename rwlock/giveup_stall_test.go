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

// TestLock_giving_up_while_the_server_stalls_leaves_no_intent checks that a
// writer whose Lock gives up while the server stalls for longer than the
// clean-up's bound, its attempt on its way, leaves no intent once the
// server answers again: the attempt, served after the stall, registers the
// intent, and it is withdrawn then, so that new readers get in at once
// instead of after the watchdog timeout (30 s) that the intent would last.
func TestLock_giving_up_while_the_server_stalls_leaves_no_intent(t *testing.T) {
	srv := redistest.StartServer(t)
	readers, writers := redistest.Lockkit(t, srv.Client(t)), redistest.Lockkit(t, srv.Client(t))
	name := redistest.Unique(t)
	r, w := rwlock.New(readers, name), rwlock.New(writers, name)
	mustRLock(t, r)
	if tryLock(t, w) { // the writer's scripts are loaded: the stall holds up the attempt itself
		t.Fatal("a writer got the read-held lock")
	}

	srv.Stall(t, 2*time.Second)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := w.Lock(ctx)
	took := time.Since(start)
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	if took >= core.CleanupTimeout {
		t.Errorf("Lock took %v to return against a stalled server; want less than the clean-up's bound %v", took, core.CleanupTimeout)
	}

	newcomer := eventuallyAdmitted(t, readers, name, "a new reader to get in after the stall")
	if s := state(t, r); s.WaitingWriters != 0 || s.Readers != 2 {
		t.Fatalf("state after the stall = %+v; want 2 readers, no intent", s)
	}
	mustRUnlock(t, newcomer)
	mustRUnlock(t, r)
	redistest.WantErr(t, w.Unlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
	wantWriterGets(t, readers, name)
}
