package adminfault_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// persistLease is the watchdog timeout of the tests of a restart from
// older data: long enough that a hold saved by a snapshot is still alive
// (it was renewed within a third of it) once the server has restarted
// from it, on a busy machine.
const persistLease = 2 * time.Second

// persistences are the ways a server keeps its data in these tests.
var persistences = []redistest.Persistence{redistest.RDB, redistest.AOF}

// forEachKindPersistent runs test for every kind and way of persistence,
// as a subtest, on servers that keep their data that way, with the
// watchdog timeout persistLease.
func forEachKindPersistent(t *testing.T, test func(t *testing.T, e *env)) {
	for _, p := range persistences {
		t.Run(p.String(), func(t *testing.T) {
			for _, k := range kinds() {
				t.Run(k.Name, func(t *testing.T) {
					test(t, newEnvOn(t, k, persistLease, redistest.StartPersistent(t, k.Servers, p)))
				})
			}
		})
	}
}

// snapshot takes the persistence files of e's first server, the one
// restore restarts: for RedLock one node of three comes back with older
// data, the others keep theirs.
func (e *env) snapshot(t *testing.T) redistest.Snapshot {
	t.Helper()
	return e.Servers[0].Snapshot(t)
}

// releasedHold has o lock and unlock, takes a snapshot between the two,
// and returns it: a restore from it brings back a hold that o released.
func (e *env) releasedHold(t *testing.T, o faultkit.Owner) redistest.Snapshot {
	t.Helper()
	faultkit.MustLock(t, o)
	snap := e.snapshot(t)
	faultkit.MustUnlock(t, o)
	return snap
}

// restore restarts e's first server from snap.
func (e *env) restore(t *testing.T, snap redistest.Snapshot) {
	t.Helper()
	e.Servers[0].RestartFrom(t, snap)
}

// restoredAlone reports whether a restore of e's first server takes every
// hold of e's lock back to the snapshot: false for RedLock, whose holds on
// the other nodes make a majority.
func (e *env) restoredAlone() bool { return e.K.Servers <= 1 }

// restoredHold checks what became of o's hold, taken on side s since the
// snapshot that e's first server was restored from, and unlocks it: when
// lost (the restart took it away), who is told within a renewal interval
// and its Unlock returns ErrLost; when kept (RedLock: a majority of its
// nodes still has it), its lost signal stays open over two renewals of
// every node and its Unlock returns nil.
func (e *env) restoredHold(t *testing.T, o faultkit.Owner, s faultkit.Side, who string, lost bool) {
	t.Helper()
	if lost {
		redistest.Eventually(t, e.Lease/3+lostSlack, who+" to be told its hold is lost", func() bool {
			return redistest.AnyClosed(o.Lost())
		})
		if err := o.Unlock(redistest.Ctx(t, callBound)); !errors.Is(err, lockkit.ErrLost) {
			t.Errorf("Unlock of the hold the restart took away = %v, want ErrLost", err)
		}
		return
	}
	renewed(t, s, 2)
	if redistest.AnyClosed(o.Lost()) {
		t.Errorf("%s was told its hold is lost, though a majority kept it", who)
	}
	faultkit.MustUnlock(t, o)
}

// waiterBound is how long after a restart a restored registration of a
// waiter that left can hold up the others at most: a lease, and for the
// kinds with a queue (fair, a semaphore's), the waiter timeout (5 s by
// default for both; the deadline of the restored entry).
func (e *env) waiterBound() time.Duration {
	switch e.K.Name {
	case "fair", "multilock", "semaphore": // the multi-lock's second member is fair
		return e.Lease + fair.DefaultWaiterTimeout
	}
	return e.Lease
}

// wantHeldByNobodyLocally checks that o's process holds nothing of its
// lock: no token, no lost signal.
func wantHeldByNobodyLocally(t *testing.T, o faultkit.Owner, who string) {
	t.Helper()
	for p, tok := range o.Tokens() {
		if tok != 0 {
			t.Errorf("%s believes it holds part %d with token %d", who, p, tok)
		}
	}
}

// wantCounterBehind checks that the fencing counter of each part of e's
// lock, as the restart brought it back on e's first server, is below the
// token of that part in tokens: a token minted from the counter alone
// would be one given out already.
func (e *env) wantCounterBehind(t *testing.T, tokens []int64) {
	t.Helper()
	for p, n := range e.K.Names(e.Name) {
		fence := "lockkit:{" + n + "}:fence"
		got, err := e.Admins[0].Get(redistest.Ctx(t, callBound), fence).Int64()
		if err != nil || got >= tokens[p] {
			t.Errorf("restored %s = %d, %v; want it below the token %d given since", fence, got, err, tokens[p])
		}
	}
}

// lockAgain starts o's Lock with ctx, as a waiter for serve.
func lockAgain(ctx context.Context, o faultkit.Owner) faultkit.Waiter {
	return faultkit.Waiter{Owner: o, Done: redistest.LockAsync(ctx, o)}
}

// TestRestoredGhostHold_the_later_holder_is_told_and_everyone_takes_the_lock_within_its_lease
// saves a hold, releases it and has another owner take the lock, then
// restarts the server from the saved data (RDB or AOF; for RedLock one
// node of three): the restored hold is a ghost of an owner that released
// it. The later holder, whose hold the restart took away, is told within
// a renewal interval and its Unlock returns ErrLost (RedLock keeps it on
// its majority: it goes on holding, unlocks with nil); the ghost's owner
// holds nothing; it, and owners of both sides, then take the lock, one at
// a time, each within the ghost's lease, with tokens larger than the
// later holder's.
func TestRestoredGhostHold_the_later_holder_is_told_and_everyone_takes_the_lock_within_its_lease(t *testing.T) {
	forEachKindPersistent(t, func(t *testing.T, e *env) {
		ghost := e.Owner(e.A, 0)
		snap := e.releasedHold(t, ghost)
		later := e.Owner(e.B, 1)
		faultkit.MustLock(t, later)
		old := later.Tokens()

		e.restore(t, snap)
		e.wantCounterBehind(t, old)
		if !e.K.Once { // a semaphore's and an election's report the last hold's
			wantHeldByNobodyLocally(t, ghost, "the ghost hold's owner")
		}
		e.restoredHold(t, later, e.B, "the later holder", e.restoredAlone())
		ctx := redistest.Ctx(t, redistest.Hang)
		serveAfter(t, e.Lease+lostSlack, old, lockAgain(ctx, ghost), lockAgain(ctx, e.Owner(e.A, 2)), lockAgain(ctx, e.Owner(e.B, 3)))
		e.Clean(t, e.Name)
	})
}

// TestRestoredOlderHold_its_owner_holding_a_newer_one_is_told_and_the_lock_frees_within_its_lease
// saves a hold, releases it and has the same owner lock again (a new hold,
// with a new token), then restarts the server from the saved data: the
// owner's new hold is gone, the older one back in its place. The owner is
// told within a renewal interval, its Unlock returns ErrLost (RedLock
// keeps the new hold on its majority), and the owner and another take the
// lock within the older hold's lease, with tokens larger than the new
// hold's.
func TestRestoredOlderHold_its_owner_holding_a_newer_one_is_told_and_the_lock_frees_within_its_lease(t *testing.T) {
	forEachKindPersistent(t, func(t *testing.T, e *env) {
		o := e.Owner(e.A, 0)
		snap := e.releasedHold(t, o)
		faultkit.MustLock(t, o)
		old := o.Tokens()

		e.restore(t, snap)
		e.restoredHold(t, o, e.A, "the owner of the new hold", e.restoredAlone())
		ctx := redistest.Ctx(t, redistest.Hang)
		serveAfter(t, e.Lease+lostSlack, old, lockAgain(ctx, o), lockAgain(ctx, e.Owner(e.B, 1)))
		e.Clean(t, e.Name)
	})
}

// TestRestoredHold_its_owner_still_holding_keeps_it restarts the server
// from data saved while a hold was held and still is: the hold comes back
// with its token, and its owner, renewing it, keeps it (its lost signal
// stays open over two renewals) while another owner is refused; its
// Unlock returns nil and frees the lock.
func TestRestoredHold_its_owner_still_holding_keeps_it(t *testing.T) {
	forEachKindPersistent(t, func(t *testing.T, e *env) {
		o := e.Owner(e.A, 0)
		faultkit.MustLock(t, o)
		before := o.Tokens()
		e.restore(t, e.snapshot(t))
		renewed(t, e.A, 2)
		if redistest.AnyClosed(o.Lost()) {
			t.Fatalf("the holder was told its hold is lost, though the restart brought it back")
		}
		if got := o.Tokens(); !equalTokens(got, before) {
			t.Errorf("tokens = %v after the restart, want %v", got, before)
		}
		other := e.Owner(e.B, 1)
		if ok, err := other.TryLock(redistest.Ctx(t, callBound)); ok || err != nil {
			t.Errorf("TryLock of another owner = %v, %v; want false, nil", ok, err)
		}
		faultkit.MustUnlock(t, o)
		e.wantFree(t, e.B, "after the Unlock")
		e.Clean(t, e.Name)
	})
}

// equalTokens reports whether a and b are the same tokens.
func equalTokens(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRestoredWaiters_that_left_hold_up_the_others_no_longer_than_their_deadline
// saves the data while a holder holds and waiters of both sides wait
// (registered, and for a fair lock queued), has the waiters give up and
// the holder unlock, then restarts the server from the saved data: the
// hold and the registrations come back, of owners gone. A new owner of
// each side and the old holder take the lock, one at a time, the first
// within the restored hold's lease (and the fair queue's waiter timeout,
// by when the restored entries are evicted), with tokens larger than the
// old hold's.
func TestRestoredWaiters_that_left_hold_up_the_others_no_longer_than_their_deadline(t *testing.T) {
	forEachKindPersistent(t, func(t *testing.T, e *env) {
		holder := e.Owner(e.A, 0)
		faultkit.MustLock(t, holder)
		old := holder.Tokens()
		wctx, cancel := context.WithCancel(redistest.Ctx(t, redistest.Hang))
		w1, w2 := e.WaitBeside(t, wctx, e.A, 1), e.Wait(t, wctx, e.B, 2)
		snap := e.snapshot(t)
		cancel()
		for _, w := range []faultkit.Waiter{w1, w2} {
			if err := redistest.Receive(t, w.Done, callBound, "a waiter to give up"); !errors.Is(err, context.Canceled) {
				t.Fatalf("Lock of a waiter that gave up = %v, want context.Canceled", err)
			}
		}
		faultkit.MustUnlock(t, holder)

		e.restore(t, snap)
		ctx := redistest.Ctx(t, redistest.Hang)
		serveAfter(t, e.waiterBound()+lostSlack, old, lockAgain(ctx, e.Owner(e.A, 3)), lockAgain(ctx, e.Owner(e.B, 4)), lockAgain(ctx, holder))
		e.Clean(t, e.Name)
	})
}
