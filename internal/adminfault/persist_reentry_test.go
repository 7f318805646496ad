package adminfault_test

import "testing"

// TestRestoredReentries_the_Unlock_of_the_last_acquire_frees_the_lock
// saves a hold entered twice, undoes one acquire, then restarts the server
// from the saved data: the hold comes back with both acquires. The
// owner's Unlock of its one acquire left returns nil and frees the lock at
// once: another owner takes it, not only once the lease ends.
func TestRestoredReentries_the_Unlock_of_the_last_acquire_frees_the_lock(t *testing.T) {
	forEachKindPersistent(t, func(t *testing.T, e *env) {
		if e.k.once {
			t.Skip("the kind's second Lock takes another hold")
		}
		o := e.owner(e.a, 0)
		mustLock(t, o)
		mustLock(t, o)
		snap := e.snapshot(t)
		mustUnlock(t, o)
		e.restore(t, snap)
		renewed(t, e.a, 1)
		mustUnlock(t, o)
		e.wantFree(t, e.b, "after the Unlock of the last acquire")
		e.clean(t, e.name)
	})
}
