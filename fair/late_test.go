package fair_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLock_hold_given_back_after_a_slow_reply_wakes_the_next_waiter: the
// release wakes the first waiter, whose acquire takes the lock at once,
// but its reply comes back after the hold's lease has ended, so the waiter
// drops the hold it learns of too late, and attempts again. Its turn was
// the hold that ended: it queues again at the end. The waiter now first
// in line for the free lock must be woken then, not a heartbeat (20 s)
// later: nothing else wakes it, as no release is published.
func TestLock_hold_given_back_after_a_slow_reply_wakes_the_next_waiter(t *testing.T) {
	const lease = time.Second
	// Only the first acquire after On is slowed down, for longer than
	// the lease.
	var slowed atomic.Bool
	slow := &redistest.Silence{Late: true, Max: lease + 200*time.Millisecond, Match: func(cmd redis.Cmder) bool {
		return isAcquire(cmd) && slowed.CompareAndSwap(false, true)
	}}
	defer slow.Off()
	e, holder, w, x, gotW, gotX := wBeforeX(t, redistest.Ctx(t, time.Minute), slow, lockkit.WithWatchdogTimeout(lease), fair.WithWaiterTimeout(time.Minute))

	slow.On()
	redistest.MustUnlock(t, holder)
	// w's acquire has run and holds the lock; its reply is held up until
	// the lease has ended, and then comes.
	redistest.Eventually(t, 10*time.Second, "w's reply to be held up", func() bool { return slow.Held() == 1 })
	redistest.Eventually(t, 10*time.Second, "w's reply to come", func() bool { return slow.Held() == 0 })
	e.wantTurn(x, gotX, 5*time.Second, "x, first in line for the free lock", "w")
	e.wantTurn(w, gotW, 10*time.Second, "w, queued again")
}

// TestLock_hold_taken_after_ctx_ended_is_handed_on: the release wakes the
// first waiter, whose acquire takes the lock, but its ctx ends before the
// reply comes. Lock returns without the lock; once the reply comes the
// hold nobody knows of is undone and handed on to the next waiter, whose
// heartbeat is 20 s away, and the first waiter's entry is gone.
func TestLock_hold_taken_after_ctx_ended_is_handed_on(t *testing.T) {
	slow := &redistest.Silence{Match: isAcquire, Late: true, Max: redistest.Hang}
	defer slow.Off()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, holder, w, x, gotW, gotX := wBeforeX(t, ctx, slow, fair.WithWaiterTimeout(time.Minute))

	slow.On()
	redistest.MustUnlock(t, holder)
	redistest.Eventually(t, 10*time.Second, "w's reply to be held up", func() bool { return slow.Held() == 1 })
	e.wantQueue("x")
	cancel()
	redistest.WantErr(t, redistest.Receive(t, gotW, 10*time.Second, "w's Lock"), lockkit.ErrNotObtained, context.Canceled)
	slow.Off()
	e.wantTurn(x, gotX, 5*time.Second, "x once w's hold is undone")
	redistest.WantHoldCount(t, w, 0)
}
