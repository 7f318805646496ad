package adminfault_test

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestScriptFlush_every_call_loads_its_script_again_and_a_retried_Unlock_unlocks_once
// flushes the servers' script caches (SCRIPT FLUSH) while a lock is held
// and waiters of two other Clients wait: the watchdog's
// renewals go on (the hold is not lost); the holder's Unlock, its reply
// lost after the server ran it, is retried after another SCRIPT FLUSH and
// returns nil without releasing anything twice; the waiters are woken and
// take the lock one after the other; nothing is left.
func TestScriptFlush_every_call_loads_its_script_again_and_a_retried_Unlock_unlocks_once(t *testing.T) {
	forEachKind(t, func(t *testing.T, e *env) {
		// The holder has a Client of its own, whose scripts' replies are
		// dropped below: only its Unlock sends scripts on it then.
		h := e.NewSide(t)
		holder := e.Owner(h, 0)
		faultkit.MustLock(t, holder)
		ctx := redistest.Ctx(t, callBound)
		w1, w2 := e.Wait(t, ctx, e.A, 1), e.Wait(t, ctx, e.B, 2)

		e.Admin(t, "script", "flush")
		renewed(t, h, 3)
		if redistest.AnyClosed(holder.Lost()) {
			t.Fatal("hold reported lost after SCRIPT FLUSH")
		}

		drops := make([]*redistest.DropReply, len(h.RCs))
		for i, rc := range h.RCs {
			drops[i] = &redistest.DropReply{Match: isScript}
			rc.AddHook(drops[i])
			drops[i].Arm()
		}
		e.Admin(t, "script", "flush")
		if err := holder.Unlock(redistest.Ctx(t, callBound)); err == nil {
			t.Fatal("Unlock whose replies were dropped returned nil")
		}
		for _, d := range drops {
			if d.Armed() {
				t.Fatal("a server's script reply was not dropped")
			}
		}
		e.Admin(t, "script", "flush")
		err := holder.Unlock(redistest.Ctx(t, callBound))
		if err != nil && (len(holder.Parts) == 1 || !errors.Is(err, lockkit.ErrNotHeld)) {
			// A multi-lock's retry returns ErrNotHeld for the members its
			// first Unlock released.
			t.Errorf("retried Unlock after SCRIPT FLUSH = %v, want nil", err)
		}
		serve(t, callBound, w1, w2)
		e.Clean(t, e.Name)
	})
}

// isScript matches the commands that run a script.
func isScript(cmd redis.Cmder) bool {
	switch cmd.Name() {
	case "eval", "evalsha":
		return true
	}
	return false
}
