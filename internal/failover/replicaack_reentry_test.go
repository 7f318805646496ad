package failover_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestWithReplicaAck_reentry_does_not_wait_for_replicas takes a lock of
// every kind WithReplicaAck applies to with the option, acknowledged by the
// master's only replica, then cuts that replica off: the holder still
// re-enters its hold, by Lock and by TryLock, since only a fresh hold waits
// for the replicas (a re-entry that waited would fail with ErrReplicaAck),
// and unlocks it as often.
func TestWithReplicaAck_reentry_does_not_wait_for_replicas(t *testing.T) {
	t.Parallel()
	master, replica := replicated(t)
	lc := redistest.Lockkit(t, master.Client(t), lockkit.WithReplicaAck(1, ackWait))
	var holders []lockkit.Locker
	for _, k := range ackKinds() {
		m := k.holder(lc, redistest.Unique(t))
		if err := m.Lock(redistest.Ctx(t, callTimeout)); err != nil {
			t.Fatalf("%s: Lock with the replica online: %v", k.name, err)
		}
		holders = append(holders, m)
	}
	cutOff(t, master, replica)
	for i, k := range ackKinds() {
		m := holders[i]
		if err := m.Lock(redistest.Ctx(t, callTimeout)); err != nil {
			t.Errorf("%s: re-entering Lock with the replica cut off: %v", k.name, err)
			continue
		}
		if ok, err := m.TryLock(redistest.Ctx(t, callTimeout)); !ok || err != nil {
			t.Errorf("%s: re-entering TryLock with the replica cut off = %v, %v", k.name, ok, err)
			continue
		}
		for range 3 {
			if err := m.Unlock(redistest.Ctx(t, callTimeout)); err != nil {
				t.Errorf("%s: Unlock: %v", k.name, err)
			}
		}
	}
}
