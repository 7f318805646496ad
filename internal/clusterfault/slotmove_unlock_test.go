package clusterfault_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestSlotMove_Unlock_refused_while_the_slot_moves_frees_the_lock_at_the_new_master
// calls each kind's Unlock while the held lock's slot is open for the
// move, with its keys at the old master and again once they are at the
// new one. Each Unlock returns within its ctx; one that fails (the nodes
// answer its script with TRYAGAIN or ASK) leaves the hold the holder's,
// not reported lost, and the lock taken. Once the move is done, the
// holder's next Unlock frees the lock at the new master, a waiter in
// another process is woken, and nothing of the lock is left.
func TestSlotMove_Unlock_refused_while_the_slot_moves_frees_the_lock_at_the_new_master(t *testing.T) {
	eachKindOnCluster(t, kinds(), func(t *testing.T, cl *redistest.Cluster, cc *redis.ClusterClient, k kind) {
		holders := redistest.Lockkit(t, cl.Client(t), lockkit.WithWatchdogTimeout(lease))
		others := redistest.Lockkit(t, cl.Client(t))
		name, moved, holder, lost := lockToMove(t, k, cc, holders)
		far := startWaiting(t, k.waiter, others, name)

		m := cl.BeginMigration(t, moved, cl.OtherMaster(t, cl.MasterOf(t, moved)))
		freed := unlockRefused(t, holder, lost, far, "with the slot open")
		m.MigrateKeys(t)
		freed = freed || unlockRefused(t, holder, lost, far, "with the keys at the new master")
		m.Finish(t)
		if !freed {
			err := holder.Unlock(redistest.Ctx(t, callTimeout))
			if _, multi := holder.(*multilock.Mutex); multi && errors.Is(err, lockkit.ErrNotHeld) {
				// The member on another master was released by the
				// first Unlock; the retry reports it not held.
				err = nil
			}
			if err != nil {
				t.Fatalf("holder's Unlock after the move: %v", err)
			}
		}
		wokenInTurn(t, k.shared, wakeBound, far)
		for _, n := range k.members(name) {
			redistest.AssertCleanWithin(t, cc, n, time.Second)
		}
	})
}

// unlockRefused calls holder's Unlock while the slot moves (when says
// at which step) and reports whether it freed the lock. Unless it did,
// its error must leave the hold the holder's: lost stays open and the
// waiter w still waits.
func unlockRefused(t *testing.T, holder lockkit.Locker, lost []<-chan struct{}, w *waiter, when string) bool {
	t.Helper()
	err := holder.Unlock(redistest.Ctx(t, callTimeout))
	if err == nil {
		return true
	}
	if errors.Is(err, lockkit.ErrLost) || redistest.AnyClosed(lost) {
		t.Fatalf("an Unlock refused %s reported the hold lost: %v", when, err)
	}
	redistest.NotYet(t, w.got, "the waiter returned after an Unlock refused "+when)
	t.Logf("Unlock %s: %v", when, err)
	return false
}
