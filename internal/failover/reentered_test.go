package failover_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestUnlock_after_a_failover_frees_a_reentered_hold_lost_to_Close locks
// each kind twice with a lease of 5 minutes, closes the Client (which
// reports the hold lost, while Redis keeps it) and fails the deployment
// over. Then the holder unlocks as often as it locked, each Unlock
// reporting ErrClosed: the first undoes both acquires at the new master,
// so that another owner gets the lock at once, not when the lease ends.
//
// Each kind runs twice: as told, and with the reply of the first release
// at the new master lost (io.EOF, as on a connection the failover broke).
// That Unlock reports the loss (ErrClosed) and the release's error; the
// next Unlock, the holder's last, asks again under the same unlock id and
// finishes the undo without releasing twice.
func TestUnlock_after_a_failover_frees_a_reentered_hold_lost_to_Close(t *testing.T) {
	eachDeployment(t, func(t *testing.T, d deployment) {
		rc := d.client(t)
		lc, others := closingClient(t, d, rc)
		type reentered struct {
			k      kind
			name   string
			holder lockkit.Locker
			drop   *redistest.DropReply // nil: no reply lost
		}
		var holds []reentered
		for _, k := range doubtKinds() {
			for _, lose := range []bool{false, true} {
				h := reentered{k: k, name: pickName(t, k, d)}
				if lose {
					h.drop = &redistest.DropReply{Match: scriptOf(h.name), Err: io.EOF}
					rc.AddHook(h.drop)
				}
				h.holder = k.holder(lc, h.name)
				for range 2 {
					if err := h.holder.Lock(redistest.Ctx(t, callTimeout)); err != nil {
						t.Fatalf("%s: holder's Lock: %v", k.name, err)
					}
				}
				holds = append(holds, h)
			}
		}
		d.replicated(t)
		if err := lc.Close(); err != nil {
			t.Fatal(err)
		}
		d.failover(t)
		// The releases are to reach the new master (a killed master
		// answers nothing, and the closed Client sent nothing since that
		// would have told the cluster client).
		d.follow(t, rc)
		for _, h := range holds {
			name := h.k.name
			if h.drop != nil {
				name += "/first_reply_lost"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				if h.drop != nil {
					h.drop.Arm()
				}
				err := h.holder.Unlock(redistest.Ctx(t, callTimeout))
				redistest.WantErr(t, err, lockkit.ErrClosed)
				if h.drop != nil && (!errors.Is(err, io.EOF) || h.drop.Armed()) {
					t.Errorf("Unlock whose release's reply was lost = %v (dropped: %v); want it to say io.EOF", err, !h.drop.Armed())
				}
				redistest.WantErr(t, h.holder.Unlock(redistest.Ctx(t, callTimeout)), lockkit.ErrClosed)
				other := h.k.waiter(others, h.name)
				if !tryLockAfter(t, other) {
					t.Fatalf("another owner was refused the lock once its holder had unlocked as often as it locked")
				}
				retry(t, "the other owner's Unlock", other.Unlock)
			})
		}
	})
}

// scriptOf matches the scripts run on the keys of the lock called name.
func scriptOf(name string) func(redis.Cmder) bool {
	return func(cmd redis.Cmder) bool {
		if !redistest.IsScript(cmd) {
			return false
		}
		for _, a := range cmd.Args() {
			if s, ok := a.(string); ok && strings.Contains(s, "{"+name+"}") {
				return true
			}
		}
		return false
	}
}
