package failover_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestWithReplicaAck_a_Lock_that_waited_fails_with_ErrReplicaAck_and_leaves_the_lock_free
// blocks a Lock with WithReplicaAck, of every kind the option applies to,
// behind another owner's hold on a master whose only replica is cut off,
// and releases that hold: the hold the waiting Lock then takes (a fair
// lock's from its place in the queue, a reader's once the writer is gone)
// is not acknowledged, so the Lock fails with ErrReplicaAck saying none
// of the one replica did, and a third owner can take the lock at once.
// A multi-lock's Lock tries again until its ctx ends instead (see its
// doc): it fails with ErrNotObtained, and leaves the lock free too.
func TestWithReplicaAck_a_Lock_that_waited_fails_with_ErrReplicaAck_and_leaves_the_lock_free(t *testing.T) {
	t.Parallel()
	master, replica := replicated(t)
	cutOff(t, master, replica)
	rc := master.Client(t)
	for _, k := range ackKinds() {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			name := redistest.Unique(t)
			blocker := k.waiter(redistest.Lockkit(t, rc), name)
			redistest.MustLock(t, blocker)
			started := make(chan struct{})
			var once sync.Once
			trace := &lockkit.Trace{WaitStart: func(lockkit.WaitStartInfo) { once.Do(func() { close(started) }) }}
			m := k.holder(redistest.Lockkit(t, rc), name, lockkit.WithReplicaAck(1, ackTimeoutShort), lockkit.WithTrace(trace))
			ctx := redistest.Ctx(t, callTimeout)
			got := redistest.LockAsync(ctx, m)
			redistest.Receive(t, started, callTimeout, "the Lock waiting")
			redistest.MustUnlock(t, blocker)
			err := redistest.Receive(t, got, 2*callTimeout, "the Lock")
			if k.name == "multilock" {
				if !errors.Is(err, lockkit.ErrNotObtained) || !errors.Is(err, ctx.Err()) {
					t.Fatalf("Lock = %v; want ErrNotObtained at the end of its ctx", err)
				}
			} else if !shortfall(t, "Lock", false, err, "0 of 1") {
				t.FailNow()
			}
			takesFree(t, k.waiter(redistest.Lockkit(t, rc), name), "the Lock failed")
		})
	}
}
