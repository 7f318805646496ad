package clusterfault_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// openLease is the lease of the holds whose slot the test below leaves
// open for longer: renewed every 500 ms.
const openLease = 1500 * time.Millisecond

// TestSlotMove_hold_outlives_a_slot_left_open_longer_than_its_lease
// leaves the slot of each kind's held lock open for the move
// (SETSLOT IMPORTING and MIGRATING, as a resharding that stopped half-way
// leaves it) for more than the lease, first with the hold's keys at the
// old master, then at the new one. Another owner's TryLock meanwhile
// does not take the lock (it may fail with the nodes' TRYAGAIN, as
// transient). The hold's renewals go on, each
// renewing it, so that it is never reported lost, and once the move is
// done it is still the holder's: a third owner cannot take it, and the
// holder's Unlock frees it.
func TestSlotMove_hold_outlives_a_slot_left_open_longer_than_its_lease(t *testing.T) {
	eachKindOnCluster(t, kinds(), func(t *testing.T, cl *redistest.Cluster, cc *redis.ClusterClient, k kind) {
		var renewed atomic.Int64
		holders := redistest.Lockkit(t, cl.Client(t), lockkit.WithWatchdogTimeout(openLease),
			lockkit.WithTrace(&lockkit.Trace{Renewed: func(i lockkit.RenewInfo) { renewed.Add(int64(i.Renewed)) }}))
		others := redistest.Lockkit(t, cl.Client(t))
		name, moved, holder, lost := lockToMove(t, k, cc, holders)
		// Renewals every third of the lease: four of them span more
		// than a lease (a multi-lock's other member, on another
		// master, counts too, so twice as many for it).
		renewals := int64(4 * len(k.members(name)))
		pastLease := func(when string) {
			from := renewed.Load()
			redistest.Eventually(t, callTimeout, "renewals for more than a lease "+when, func() bool {
				return renewed.Load() >= from+renewals || redistest.AnyClosed(lost)
			})
			if redistest.AnyClosed(lost) {
				t.Fatalf("the hold was reported lost %s", when)
			}
		}

		m := cl.BeginMigration(t, moved, cl.OtherMaster(t, cl.MasterOf(t, moved)))
		if ok, err := k.waiter(others, name).TryLock(redistest.Ctx(t, callTimeout)); ok || (err != nil && !core.Transient(err)) {
			t.Fatalf("another owner's TryLock with the slot open = %v, %v; want false and no error, or a transient one", ok, err)
		}
		pastLease("with the slot open and the keys at the old master")
		m.MigrateKeys(t)
		pastLease("with the slot open and the keys at the new master")
		m.Finish(t)
		if redistest.AnyClosed(lost) {
			t.Fatal("the hold was reported lost as its slot moved")
		}
		if ok, err := k.waiter(others, name).TryLock(redistest.Ctx(t, callTimeout)); ok || err != nil {
			t.Fatalf("another owner's TryLock after the move = %v, %v; want false, nil", ok, err)
		}
		if err := holder.Unlock(redistest.Ctx(t, callTimeout)); err != nil {
			t.Fatalf("holder's Unlock after the move: %v", err)
		}
		for _, n := range k.members(name) {
			redistest.AssertCleanWithin(t, cc, n, time.Second)
		}
	})
}
