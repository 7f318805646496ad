package clusterfault_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// twoKeyRenewalKinds are the kinds whose renewal script names two keys,
// the hash and the lease set (an rwlock's, a semaphore's): the nodes
// refuse it while a move has taken one of them to the new master and left
// the other at the old one.
func twoKeyRenewalKinds() []kind {
	var ks []kind
	for _, k := range kinds() {
		switch k.name {
		case "rwlock", "rwlock-read", "semaphore":
			ks = append(ks, k)
		}
	}
	return ks
}

// TestSlotMove_slot_left_split_past_the_lease_reports_the_loss_before_another_owner_holds
// leaves the slot of an rwlock's and a semaphore's held lock open for a
// move, with the lease set moved to the new master and the hash left at
// the old one (a resharding stopped between two MIGRATEs), until the hold
// is reported lost (its renewals refused with TRYAGAIN for a whole
// lease), then finishes the move. Another owner, waiting meanwhile, gets
// the lock only after the holder was told, and the holder's Unlock
// reports the loss.
func TestSlotMove_slot_left_split_past_the_lease_reports_the_loss_before_another_owner_holds(t *testing.T) {
	eachKindOnCluster(t, twoKeyRenewalKinds(), func(t *testing.T, cl *redistest.Cluster, cc *redis.ClusterClient, k kind) {
		holders := redistest.Lockkit(t, cl.Client(t), lockkit.WithWatchdogTimeout(openLease))
		others := redistest.Lockkit(t, cl.Client(t))
		name, _, holder, lost := lockToMove(t, k, cc, holders)
		var told atomic.Bool
		w := startWaiting(t, k.waiter, others, name)
		go func() {
			for _, ch := range lost {
				<-ch
			}
			told.Store(true)
		}()

		m := cl.BeginMigration(t, lockKey(name), cl.OtherMaster(t, cl.MasterOf(t, lockKey(name))))
		m.MigrateSome(t, lockKey(name)+":leases")
		redistest.Eventually(t, callTimeout, "the hold reported lost with its slot split", func() bool {
			return told.Load()
		})
		redistest.NotYet(t, w.got, "the waiter returned while the slot was split")
		m.MigrateKeys(t)
		m.Finish(t)
		if err := redistest.Receive(t, w.got, callTimeout, "the waiter to get the lock after the move"); err != nil {
			t.Fatalf("the waiter's Lock = %v; want the lock", err)
		}
		if err := holder.Unlock(redistest.Ctx(t, callTimeout)); !errors.Is(err, lockkit.ErrLost) {
			t.Fatalf("holder's Unlock after the loss = %v; want ErrLost", err)
		}
		if err := w.l.Unlock(redistest.Ctx(t, callTimeout)); err != nil {
			t.Fatalf("the waiter's Unlock: %v", err)
		}
		redistest.AssertCleanWithin(t, cc, name, time.Second)
	})
}
