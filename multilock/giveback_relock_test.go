package multilock_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestLock_again_after_a_give_back_in_doubt_then_Unlock_leaves_nothing_held:
// a round's give-back of member a gets no reply, so Lock fails naming a.
// The caller does not settle a by its own Unlock, but locks the Mutex
// again, at once or once the lock has settled that give-back in the
// background, and then unlocks it. a's next Unlock after the one in doubt
// is that one's retry, which leaves a newer hold be: the Mutex settles it
// before it takes a again, so that its Unlock releases the new hold, and
// nothing is left held.
func TestLock_again_after_a_give_back_in_doubt_then_Unlock_leaves_nothing_held(t *testing.T) {
	for _, settled := range []bool{false, true} {
		t.Run(fmt.Sprintf("settled_in_the_background=%v", settled), func(t *testing.T) {
			// Holds up the first release of a once on: the give-back.
			g := newHeldRelease(t, 1)
			defer g.silent.Off()
			rc, silent, a, b := g.rc, g.silent, g.a, g.b
			other, memberA, memberB := g.other, g.memberA, g.memberB
			m := multilock.New([]lockkit.Locker{memberB, memberA})

			silent.On()
			ok, err := m.TryLock(redistest.Ctx(t, redistest.Hang))
			if ok || err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q may still be held", a)) {
				t.Fatalf("TryLock whose give-back of a got no reply = %v, %v; want false and an error naming a", ok, err)
			}
			silent.Off()
			redistest.MustUnlock(t, other)
			if settled {
				redistest.Eventually(t, redistest.Hang, "a's give-back to be settled", func() bool {
					n, err := rc.Exists(redistest.Ctx(t, redistest.Hang), "lockkit:{"+a+"}").Result()
					return n == 0 && err == nil
				})
			}
			redistest.MustLock(t, m)
			redistest.WantHoldCount(t, memberA, 1)
			redistest.MustUnlock(t, m)
			redistest.AssertCleanWithin(t, rc, a, 5*time.Second)
			redistest.AssertClean(t, rc, b)
		})
	}
}
