package adminfault_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestFullMemory_Unlocks_of_a_reentered_hold_free_the_lock fills the
// memory of the server (maxmemory with noeviction) while an owner holds a
// lock it entered twice, for every kind whose owner re-enters its hold:
// the first Unlock returns nil and keeps the lock held, the second frees
// it, and nothing is left; once memory is freed, the lock can be taken
// again.
func TestFullMemory_Unlocks_of_a_reentered_hold_free_the_lock(t *testing.T) {
	forEachKind(t, func(t *testing.T, e *env) {
		o := e.reentered(t)

		e.fill(t, "noeviction")
		if err := o.Unlock(redistest.Ctx(t, callBound)); err != nil {
			t.Fatalf("first Unlock of a hold entered twice, with the memory full = %v, want nil", err)
		}
		if redistest.AnyClosed(o.Lost()) {
			t.Fatal("hold reported lost after the first Unlock")
		}
		if err := o.Unlock(redistest.Ctx(t, callBound)); err != nil {
			t.Fatalf("second Unlock with the memory full = %v, want nil", err)
		}
		e.Clean(t, e.Name)

		e.unfill(t)
		e.wantFree(t, e.B, "memory freed")
	})
}
