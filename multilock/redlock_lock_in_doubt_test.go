package multilock_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_Lock_while_an_Unlock_in_doubt_is_unsettled_keeps_it_for_the_retry:
// no node answers the release of r's last Unlock, so its outcome is
// unknown and r keeps the hold. A Lock and a TryLock called while the
// nodes still do not answer those releases cannot settle it: they take no
// new hold behind it (a later retry of the Unlock would release that hold
// under its owner's feet) and fail, TryLock with ErrQuorum, and r keeps
// the hold in doubt. Once
// the nodes answer, the Unlock called again asks them again and settles
// it without releasing anything twice, and the lock is free.
func TestRedLock_Lock_while_an_Unlock_in_doubt_is_unsettled_keeps_it_for_the_retry(t *testing.T) {
	clients, lcs, name, r, silent := heldOnSilentNodes(t)
	defer silent.Off()
	token := r.Token()
	unlockUnanswered(t, r, silent)

	err := r.Lock(redistest.Ctx(t, 500*time.Millisecond))
	redistest.WantErr(t, err, lockkit.ErrNotObtained)
	ok, err := r.TryLock(redistest.Ctx(t, redistest.Hang))
	if ok {
		t.Fatal("TryLock took a new hold while the Unlock in doubt is unsettled")
	}
	redistest.WantErr(t, err, lockkit.ErrQuorum)
	if r.Token() != token {
		t.Fatalf("Token() = %d while the Unlock is in doubt, want %d", r.Token(), token)
	}
	if n := holders(t, clients, name); n != len(clients) {
		t.Fatalf("%d nodes hold the lock while no release has run, want %d", n, len(clients))
	}

	silent.Off()
	redistest.MustUnlock(t, r) // settles the Unlock in doubt
	if r.Token() != 0 {
		t.Fatalf("Token() = %d once the Unlock is settled", r.Token())
	}
	redistest.WantErr(t, r.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrNotHeld)
	other := multilock.NewRedLock(lcs, name)
	if ok, err := other.TryLock(redistest.Ctx(t, redistest.Hang)); !ok || err != nil {
		t.Fatalf("TryLock by another owner once the Unlock is settled = %v, %v; want true", ok, err)
	}
	redistest.MustUnlock(t, other)
	assertCleanAll(t, clients, name)
}

// TestRedLock_Lock_after_an_Unlock_in_doubt_leaves_its_outcome_to_the_next_Unlock:
// no node answers the release of r's last Unlock until it has given up;
// then the nodes answer again, and r locks again before calling Unlock
// again. Lock settles the Unlock in doubt and takes a new hold; the next
// Unlock, the retry, returns the settled outcome (nil) and leaves the new
// hold be, so another owner still cannot take the lock; the Unlock after
// it frees the lock.
func TestRedLock_Lock_after_an_Unlock_in_doubt_leaves_its_outcome_to_the_next_Unlock(t *testing.T) {
	clients, lcs, name, r, silent := heldOnSilentNodes(t)
	defer silent.Off()
	unlockUnanswered(t, r, silent)
	silent.Off()

	redistest.MustLock(t, r)
	redistest.MustUnlock(t, r) // the retry: the settled outcome
	other := multilock.NewRedLock(lcs, name)
	if ok, err := other.TryLock(redistest.Ctx(t, redistest.Hang)); ok || err != nil {
		t.Fatalf("TryLock by another owner after the retry = %v, %v; want false: r locked again", ok, err)
	}
	redistest.MustUnlock(t, r)
	redistest.WantErr(t, r.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrNotHeld)
	redistest.MustLock(t, other)
	redistest.MustUnlock(t, other)
	assertCleanAll(t, clients, name)
}
