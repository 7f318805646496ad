package adminfault_test

import (
	"strings"
	"testing"

	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestFullMemory_Lock_fails_with_OOM_and_Unlock_and_ForceUnlock_free_the_lock
// fills the memory of the server (maxmemory with noeviction) while a lock
// is held, another is held to be force-unlocked, and a waiter of another
// Client waits: a Lock of a free lock fails at once with the server's OOM
// error and leaves nothing (or takes the lock, where its script wrote
// something first: Redis then lets the script run to its end); the holds
// live on through the watchdog's renewals; Unlock and ForceUnlock free
// their locks and leave nothing, and the waiter, woken, fails with the
// OOM error too (or takes the lock); once memory is freed, the lock can
// be taken again.
func TestFullMemory_Lock_fails_with_OOM_and_Unlock_and_ForceUnlock_free_the_lock(t *testing.T) {
	forEachKind(t, func(t *testing.T, e *env) {
		held := e.Owner(e.A, 0)
		faultkit.MustLock(t, held)
		forcedName := e.Name + "-forced"
		forced := e.K.Owner(e.A.Nodes, forcedName, 0)
		faultkit.MustLock(t, forced)
		w := e.Wait(t, redistest.Ctx(t, callBound), e.B, 1)

		e.fill(t, "noeviction")

		freshName := e.Name + "-fresh"
		fresh := e.K.Owner(e.B.Nodes, freshName, 1)
		if wantOOM(t, "Lock of a free lock", fresh.Lock(redistest.Ctx(t, callBound))) {
			faultkit.MustUnlock(t, fresh)
		}
		e.Clean(t, freshName)

		renewed(t, e.A, 4)
		if redistest.AnyClosed(held.Lost()) {
			t.Errorf("hold reported lost while memory is full")
		}

		if err := held.Unlock(redistest.Ctx(t, callBound)); err != nil {
			t.Errorf("Unlock with the memory full = %v, want nil", err)
		}
		if wantOOM(t, "the waiter's Lock", redistest.Receive(t, w.Done, callBound, "the waiter's Lock to return")) {
			faultkit.MustUnlock(t, w.Owner)
		}
		e.Clean(t, e.Name)
		if forced.Force != nil {
			if ok, err := forced.Force(redistest.Ctx(t, callBound)); !ok || err != nil {
				t.Errorf("ForceUnlock with the memory full = %v, %v; want true, nil", ok, err)
			}
			e.Clean(t, forcedName)
		}

		e.unfill(t)
		e.wantFree(t, e.B, "memory freed")
	})
}

// wantOOM checks the error of a Lock made while the server's memory is
// full: the server's OOM error, returned at once, or nil when the Lock
// took the lock. It reports whether the Lock took it.
func wantOOM(t *testing.T, what string, err error) bool {
	t.Helper()
	if err != nil && !strings.Contains(err.Error(), "OOM") {
		t.Errorf("%s with the memory full = %v, want the server's OOM error", what, err)
	}
	return err == nil
}
