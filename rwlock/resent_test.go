package rwlock_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestRead_side_scripts_sent_twice_count_once checks the read side against
// a script that reaches the server twice, as go-redis sends it again when a
// read times out (the conformance suite checks the write side's acquire):
// a fresh RLock, a re-entry, the writer's RLock and each RUnlock count
// once, so that the last RUnlock frees the lock.
func TestRead_side_scripts_sent_twice_count_once(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		h := &redistest.ResendScript{}
		rc := redistest.SpecClient(redistest.ClientSpec(c))
		t.Cleanup(func() { _ = rc.Close() })
		rc.AddHook(h)
		lc, name := redistest.Lockkit(t, rc), redistest.Unique(t)
		m := rwlock.New(lc, name)
		twice := func(what string, f func(t testing.TB, m *rwlock.RWMutex), holds, rholds int) {
			t.Helper()
			h.Arm()
			f(t, m)
			if h.Armed() {
				t.Fatalf("%s: no script sent", what)
			}
			s := state(t, m)
			if s.HoldCount != holds || s.RHoldCount != rholds {
				t.Fatalf("state after %s sent twice = %+v; want HoldCount %d, RHoldCount %d", what, s, holds, rholds)
			}
		}
		twice("RLock", mustRLock, 0, 1)
		twice("a read re-entry", mustRLock, 0, 2)
		twice("RUnlock", mustRUnlock, 0, 1)
		twice("the last RUnlock", mustRUnlock, 0, 0)
		wantState(t, m, rwlock.Unlocked, 0, 0, 0)

		redistest.MustLock(t, m)
		twice("the writer's RLock", mustRLock, 1, 1)
		twice("the downgrade's Unlock", func(t testing.TB, m *rwlock.RWMutex) { redistest.MustUnlock(t, m) }, 0, 1)
		twice("the downgraded owner's RUnlock", mustRUnlock, 0, 0)
		redistest.WantErr(t, m.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
		wantWriterGets(t, lc, name)
	})
}
