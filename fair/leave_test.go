package fair_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLock_failed_attempt_takes_the_waiter_out_of_the_queue_before_returning:
// a waiter's heartbeat attempt runs on the server (renewing its entry) but
// its reply is lost, an error Lock does not wait out. Its entry must be
// out of the queue when Lock returns, so that the waiter behind it, whose
// heartbeat is a minute away, is woken by the next release.
func TestLock_failed_attempt_takes_the_waiter_out_of_the_queue_before_returning(t *testing.T) {
	hook := &redistest.DropReply{Match: isAcquire}
	// A heartbeat every 100 ms.
	e, holder, _, x, gotW, gotX := wBeforeX(t, redistest.Ctx(t, time.Minute), hook, fair.WithWaiterTimeout(300*time.Millisecond))

	hook.Arm()
	redistest.WantErr(t, redistest.Receive(t, gotW, 10*time.Second, "w's Lock"), redistest.ErrReplyDropped)
	if hook.Armed() {
		t.Fatal("w's Lock failed before its attempt's reply was dropped")
	}
	e.wantQueue("x")
	redistest.MustUnlock(t, holder)
	e.wantTurn(x, gotX, 10*time.Second, "x after the release")
}

// TestLock_ctx_ended_against_a_silent_server_leaves_the_queue_in_the_background:
// a waiter's ctx ends while the server does not answer it. Lock returns
// within CleanupGrace or so, with its entry's removal still held up; once
// the server answers, the entry leaves, long before its waiter timeout
// (a minute), and the next release wakes the waiter behind it.
func TestLock_ctx_ended_against_a_silent_server_leaves_the_queue_in_the_background(t *testing.T) {
	silent := &redistest.Silence{Match: redistest.IsScript, Max: redistest.Hang}
	defer silent.Off()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, holder, _, x, gotW, gotX := wBeforeX(t, ctx, silent, fair.WithWaiterTimeout(time.Minute))

	silent.On()
	start := time.Now()
	cancel()
	redistest.WantErr(t, redistest.Receive(t, gotW, 10*time.Second, "w's Lock"), lockkit.ErrNotObtained, context.Canceled)
	// Loose, against a loaded machine: a Lock that waited for the
	// clean-up itself would take until the silence ends.
	if took := time.Since(start); took >= core.CleanupTimeout {
		t.Errorf("Lock took %v to return after its ctx ended against a silent server; want about %v", took, core.CleanupGrace)
	}
	if n := silent.Held(); n != 1 {
		t.Fatalf("%d scripts held up when Lock returned; want 1, the queue's clean-up", n)
	}
	e.wantQueue("w", "x")
	silent.Off()
	e.waitQueue("x")
	redistest.MustUnlock(t, holder)
	e.wantTurn(x, gotX, 10*time.Second, "x after the release")
}
