package failover_test

import (
	"errors"
	"testing"
	"time"

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

// TestWithReplicaAck_reentry_of_a_fixed_lease_waits_for_replicas: a
// re-entry moves a fixed lease's end ([lockkit.WithLease]), which no
// renewal moves again, so a failover that lost the move would end the hold
// before its holder expects it. With the master's only replica cut off,
// such a re-entry of every kind WithReplicaAck applies to fails with
// ErrReplicaAck and is undone, in Redis as in the holder: one Unlock frees
// the lock. In cohort mode a re-entry counts in memory and moves no lease:
// it waits for nothing.
func TestWithReplicaAck_reentry_of_a_fixed_lease_waits_for_replicas(t *testing.T) {
	t.Parallel()
	master, replica := replicated(t)
	lc := redistest.Lockkit(t, master.Client(t), lockkit.WithReplicaAck(1, ackWait), lockkit.WithLease(time.Minute))
	var holders []lockkit.Locker
	var names []string
	for _, k := range ackKinds() {
		name := redistest.Unique(t)
		m := k.holder(lc, name)
		if err := m.Lock(redistest.Ctx(t, callTimeout)); err != nil {
			t.Fatalf("%s: Lock with the replica online: %v", k.name, err)
		}
		holders, names = append(holders, m), append(names, name)
	}
	cutOff(t, master, replica)
	for i, k := range ackKinds() {
		m, holds := holders[i], 1
		err := m.Lock(redistest.Ctx(t, callTimeout))
		switch {
		case k.name == "reentrant-cohort" && err == nil:
			holds++
		case k.name == "reentrant-cohort":
			t.Errorf("%s: re-entering Lock in memory = %v", k.name, err)
		case !errors.Is(err, lockkit.ErrReplicaAck):
			t.Errorf("%s: re-entering Lock with the replica cut off = %v; want ErrReplicaAck", k.name, err)
		}
		for range holds {
			if err := m.Unlock(redistest.Ctx(t, callTimeout)); err != nil {
				t.Errorf("%s: Unlock: %v", k.name, err)
			}
		}
		redistest.AssertClean(t, master.Client(t), names[i])
	}
}
