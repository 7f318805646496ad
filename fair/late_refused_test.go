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

// TestLock_ctx_ended_with_a_refused_attempt_outstanding_leaves_no_entry: a
// wake-up makes w attempt while the lock is held, and the attempt is held
// up (its reply, after it renewed w's entry on the server; or the attempt
// itself, before it reaches the server); w's ctx ends meanwhile, and Lock
// returns. Its own clean-up gives up waiting for the attempt, so w's entry
// is still there; once the attempt is answered, the entry is gone, and
// the release wakes x, whose heartbeat is 20 s away.
func TestLock_ctx_ended_with_a_refused_attempt_outstanding_leaves_no_entry(t *testing.T) {
	for _, late := range []bool{true, false} {
		what := map[bool]string{true: "reply held up", false: "attempt held up"}[late]
		t.Run(what, func(t *testing.T) {
			slow := &redistest.Silence{Match: isAcquire, Late: late, Max: redistest.Hang}
			defer slow.Off()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			e, holder, _, x, gotW, gotX := wBeforeX(t, ctx, slow, fair.WithWaiterTimeout(time.Minute))

			slow.On()
			if err := e.c.Publish(redistest.Ctx(t, 5*time.Second), channelOf(e.name, "w"), "1").Err(); err != nil {
				t.Fatalf("PUBLISH: %v", err)
			}
			redistest.Eventually(t, 10*time.Second, "w's attempt to be held up", func() bool { return slow.Held() == 1 })
			cancel()
			redistest.WantErr(t, redistest.Receive(t, gotW, 10*time.Second, "w's Lock"), lockkit.ErrNotObtained, context.Canceled)
			time.Sleep(core.CleanupTimeout + 100*time.Millisecond)
			e.wantQueue("w", "x")
			slow.Off()
			e.waitQueue("x")
			redistest.MustUnlock(t, holder)
			e.wantTurn(x, gotX, 5*time.Second, "x after the release")
		})
	}
}
