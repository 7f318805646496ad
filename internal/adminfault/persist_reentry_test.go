package adminfault_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/faultkit"
)

// TestRestoredReentries_the_Unlock_of_the_last_acquire_frees_the_lock
// saves a hold entered twice, undoes one acquire, then restarts the server
// from the saved data: the hold comes back with both acquires. The
// owner's Unlock of its one acquire left returns nil and frees the lock at
// once: another owner takes it, not only once the lease ends.
func TestRestoredReentries_the_Unlock_of_the_last_acquire_frees_the_lock(t *testing.T) {
	forEachKindPersistent(t, func(t *testing.T, e *env) {
		o := e.reentered(t)
		snap := e.snapshot(t)
		faultkit.MustUnlock(t, o)
		e.restore(t, snap)
		renewed(t, e.A, 1)
		faultkit.MustUnlock(t, o)
		e.wantFree(t, e.B, "after the Unlock of the last acquire")
		e.Clean(t, e.Name)
	})
}
