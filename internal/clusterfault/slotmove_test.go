package clusterfault_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// renewalSlack is how much more than its running down a TTL must have
// gained for a renewal to have set it: more than the time between reading
// the clock and reading the TTL.
const renewalSlack = 100 * time.Millisecond

// TestSlotMove_keeps_the_hold_and_wakes_the_waiters_at_the_new_master moves
// the slot of each kind's held lock (a multi-lock's first member) to
// another master, step by step, while owners in the holder's process and
// in another wait for it. A renewal is answered while the slot is open
// with the keys at the old master, and again once they are at the new one
// (renewed, or refused with TRYAGAIN or ASK for the kinds whose renewal
// names keys the lock may not have, and tried again); the hold survives
// the move: it is not reported lost, a renewal reaches the new master,
// and a third owner cannot take the lock. The holder's Unlock
// then frees it at the new master, whose release wakes the waiters in
// turn, and nothing of the lock is left.
func TestSlotMove_keeps_the_hold_and_wakes_the_waiters_at_the_new_master(t *testing.T) {
	eachKindOnCluster(t, kinds(), func(t *testing.T, cl *redistest.Cluster, cc *redis.ClusterClient, k kind) {
		var r renewals
		holders := redistest.Lockkit(t, cl.Client(t), lockkit.WithWatchdogTimeout(lease), lockkit.WithTrace(r.trace()))
		others := redistest.Lockkit(t, cl.Client(t))
		third := redistest.Lockkit(t, cl.Client(t))
		name, moved, holder, lost := lockToMove(t, k, cc, holders)
		near := startWaiting(t, k.waiter, holders, name)
		far := startWaiting(t, k.waiter, others, name)

		from := cl.MasterOf(t, moved)
		m := cl.BeginMigration(t, moved, cl.OtherMaster(t, from))
		r.sentOnce(t, "with the slot open")
		keys := m.MigrateKeys(t)
		if len(keys) == 0 {
			t.Fatalf("no key of the held lock in its slot at %s", from.Addr())
		}
		r.sentOnce(t, "with the keys at the new master")
		m.Finish(t)

		// The lock's hash lives as long as its hold's lease: a renewal
		// sets its TTL back up, where it otherwise runs down.
		tc := m.To().Client(t)
		at, before := time.Now(), pttl(t, tc, moved)
		redistest.Eventually(t, callTimeout, "a renewal at the new master", func() bool {
			return pttl(t, tc, moved) > before-time.Since(at)+renewalSlack || redistest.AnyClosed(lost)
		})
		if redistest.AnyClosed(lost) {
			t.Fatal("the hold was reported lost as its slot moved")
		}
		if ok, err := k.waiter(third, name).TryLock(redistest.Ctx(t, callTimeout)); ok || err != nil {
			t.Fatalf("a third owner's TryLock after the move = %v, %v; want false, nil", ok, err)
		}
		redistest.NotYet(t, near.got, "the waiter in the holder's process returned while the lock was held")
		redistest.NotYet(t, far.got, "the waiter in another process returned while the lock was held")

		if err := holder.Unlock(redistest.Ctx(t, callTimeout)); err != nil {
			t.Fatalf("holder's Unlock after the move: %v", err)
		}
		wokenInTurn(t, k.shared, wakeBound, near, far)
		for _, n := range k.members(name) {
			redistest.AssertCleanWithin(t, cc, n, time.Second)
		}
	})
}
