package multilock_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestLock_failed_give_back_in_a_later_round_is_returned_at_once: when the
// give-back of a round after the first gets no reply in time (a timeout,
// which the wait loop would retry as a passing network fault), Lock still
// returns at once with an error naming the member that may still be held,
// and does not start over: once the busy member is free, another round
// would take every member and leave them held behind an error.
func TestLock_failed_give_back_in_a_later_round_is_returned_at_once(t *testing.T) {
	// Holds up the second release of a only: the give-back of round 2.
	g := newHeldRelease(t, 2)
	defer g.silent.Off()
	rc, silent, a, b := g.rc, g.silent, g.a, g.b
	other, memberA, memberB := g.other, g.memberA, g.memberB
	// b is busy: each round takes a, waits at most 20 ms for b and gives a
	// back.
	m := multilock.New([]lockkit.Locker{memberB, memberA}, multilock.WithLockWait(20*time.Millisecond))
	silent.On()
	done := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), m)
	redistest.Eventually(t, redistest.Hang, "the give-back of round 2 to be held up", func() bool { return silent.Held() == 1 })
	redistest.MustUnlock(t, other) // the next round, if any, takes both

	err := redistest.Receive(t, done, redistest.Hang, "Lock whose give-back got no reply")
	if err == nil || errors.Is(err, lockkit.ErrNotObtained) || !strings.Contains(err.Error(), fmt.Sprintf("%q may still be held", a)) {
		t.Fatalf("Lock whose give-back of a got no reply in round 2 = %v; want an error naming a", err)
	}
	redistest.WantHoldCount(t, memberB, 0)
	silent.Off()
	redistest.MustUnlock(t, memberA) // settles the release in doubt
	redistest.AssertClean(t, rc, a)
	redistest.AssertClean(t, rc, b)
}
