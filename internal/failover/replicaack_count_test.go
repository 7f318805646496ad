package failover_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestWithReplicaAck_more_replicas_asked_than_there_are_fails_saying_how_many_did
// asks for the acknowledgement of two replicas from a master that has
// one, online: a TryLock of every kind WithReplicaAck applies to fails
// with ErrReplicaAck saying that 1 of 2 acknowledged, and leaves the lock
// free.
func TestWithReplicaAck_more_replicas_asked_than_there_are_fails_saying_how_many_did(t *testing.T) {
	t.Parallel()
	master, _ := replicated(t)
	rc := master.Client(t)
	// The timeout is long enough for the one replica to acknowledge on a
	// loaded machine; the call waits it out for the second.
	lc := redistest.Lockkit(t, rc, lockkit.WithReplicaAck(2, 2*time.Second))
	others := redistest.Lockkit(t, rc)
	for _, k := range ackKinds() {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			name := redistest.Unique(t)
			ok, err := k.holder(lc, name).TryLock(redistest.Ctx(t, callTimeout))
			if !shortfall(t, "TryLock", ok, err, "1 of 2") || !takesFree(t, k.waiter(others, name), "the shortfall") {
				t.FailNow()
			}
		})
	}
}
