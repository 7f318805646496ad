package multilock_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_Lock_settles_an_Unlock_in_doubt_through_a_node_killed_or_restarted_meanwhile:
// no node answers the release of r's last Unlock, so its outcome is
// unknown and each node's part is asked again in the background. r locks
// again; while the nodes still do not answer, Lock keeps trying to settle
// that Unlock first. Node 0 is then killed (or restarted empty), and the
// nodes answer again. Lock settles the Unlock on the two other nodes, a
// majority, and takes a new hold (on every node that answers). The next
// Unlock, the retry of the one in doubt, returns its outcome (nil) and
// leaves the new hold be; the one after frees the lock on every node.
// When nodes 0 and 1 both restart empty, the Unlock released the lock on
// node 2 alone, fewer than a majority: its outcome, which the retry
// returns, is ErrLost.
func TestRedLock_Lock_settles_an_Unlock_in_doubt_through_a_node_killed_or_restarted_meanwhile(t *testing.T) {
	for _, tt := range []struct {
		fault string
		nodes int   // how many, from node 0 on
		want  error // the outcome of the Unlock in doubt
	}{
		{"killed", 1, nil},
		{"restarted", 1, nil},
		{"restarted", 2, lockkit.ErrLost},
	} {
		t.Run(fmt.Sprintf("%d_%s", tt.nodes, tt.fault), func(t *testing.T) {
			servers, clients := masters(t, 3)
			silent := releaseSilence()
			defer silent.Off()
			for _, c := range clients {
				c.(*redis.Client).AddHook(silent)
			}
			lcs := lockkits(t, clients)
			name := redistest.Unique(t)
			r := multilock.NewRedLock(lcs, name, multilock.WithNodeTimeout(100*time.Millisecond))
			redistest.MustLock(t, r)
			unlockUnanswered(t, r, silent)

			done := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), r)
			// The Unlock's releases, and more: the Lock's, or the
			// background's.
			redistest.Eventually(t, redistest.Hang, "more releases to be held up", func() bool { return silent.Held() > 3 })
			redistest.NotYet(t, done, "Lock returned while no node answers the Unlock in doubt")
			live := clients
			for _, s := range servers[:tt.nodes] {
				if tt.fault == "killed" {
					s.Kill(t)
					live = clients[tt.nodes:]
				} else {
					s.Restart(t)
				}
			}
			silent.Off()
			if err := redistest.Receive(t, done, redistest.Hang, "Lock once the nodes answer"); err != nil {
				t.Fatalf("Lock once the nodes answer, %d %s = %v; want the lock", tt.nodes, tt.fault, err)
			}
			if n := holders(t, live, name); n != len(live) {
				t.Fatalf("the new hold is on %d of the %d nodes that answer", n, len(live))
			}

			switch err := r.Unlock(redistest.Ctx(t, redistest.Hang)); {
			case tt.want != nil:
				redistest.WantErr(t, err, tt.want)
			case err != nil:
				t.Fatalf("Unlock after Lock settled the Unlock in doubt = %v; want its outcome, nil", err)
			}
			if ok, err := multilock.NewRedLock(lcs, name).TryLock(redistest.Ctx(t, redistest.Hang)); ok || err != nil {
				t.Fatalf("TryLock by another owner after the retry = %v, %v; want false, nil: r locked again", ok, err)
			}
			redistest.MustUnlock(t, r)
			redistest.WantErr(t, r.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrNotHeld)
			assertCleanAll(t, live, name)
		})
	}
}
