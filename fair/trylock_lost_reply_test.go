package fair_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestTryLock_whose_reply_is_lost_leaves_no_queue_entry: TryLock never
// queues, also when its reply is lost. Refused by a held lock that w
// waits for, it leaves the queue as it was, and the release hands the lock
// to w; taking the free lock, its hold is undone, and it leaves neither a
// hold nor an entry behind, so that another owner's TryLock takes the
// lock.
func TestTryLock_whose_reply_is_lost_leaves_no_queue_entry(t *testing.T) {
	hook := &redistest.DropReply{Match: isAcquire}
	e, lc, _ := twoClients(t, hook)
	holder := e.held()
	w := e.mutex(lockkit.WithOwner("w"), fair.WithWaiterTimeout(time.Minute))
	gotW := redistest.LockAsync(redistest.Ctx(t, time.Minute), w)
	e.waitQueue("w")
	try := e.on(lc).mutex(lockkit.WithOwner("try"))

	for _, state := range []string{"held, with a waiter", "free"} {
		hook.Arm()
		ok, err := try.TryLock(redistest.Ctx(t, 5*time.Second))
		redistest.WantErr(t, err, redistest.ErrReplyDropped)
		if ok || hook.Armed() {
			t.Fatalf("TryLock on the %s lock = %v (reply lost: %v); want a lost reply", state, ok, !hook.Armed())
		}
		if state == "free" {
			break
		}
		e.wantQueue("w")
		redistest.MustUnlock(t, holder)
		e.wantTurn(w, gotW, 5*time.Second, "w after the release")
	}
	e.wantQueue()
	other := e.mutex(lockkit.WithOwner("other"))
	if ok, err := other.TryLock(redistest.Ctx(t, 5*time.Second)); !ok || err != nil {
		t.Fatalf("another owner's TryLock = %v, %v; want the lock free", ok, err)
	}
	redistest.MustUnlock(t, other)
}
