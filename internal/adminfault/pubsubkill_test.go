package adminfault_test

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

// pubsubKills is how many times the pub/sub connections are killed while
// the waiters wait.
const pubsubKills = 5

// wakeBound bounds the time from a release to the waiter it wakes holding
// the lock: far less than the test's lease, which bounds a waiter's sleep
// when no wake-up reaches it.
const wakeBound = time.Second

// TestPubsubKilled_repeatedly_the_waiters_are_still_woken_by_the_release
// kills every pub/sub connection of the server (CLIENT KILL TYPE pubsub)
// five times while a lock with a 20 s lease is held and waiters of the
// holder's Client, of another and of a child process wait, each time once
// the waiters have subscribed again: the holder keeps its hold, and once
// it unlocks, the waiters take the lock one after the other, each within
// a second of the release before, not at the end of a lease.
func TestPubsubKilled_repeatedly_the_waiters_are_still_woken_by_the_release(t *testing.T) {
	forEachKindLease(t, 20*time.Second, func(t *testing.T, e *env) {
		holder := e.owner(e.a, 0)
		mustLock(t, holder)
		ctx := redistest.Ctx(t, redistest.Hang)
		w1, w2 := e.wait(t, ctx, e.a, 1), e.wait(t, ctx, e.b, 2)
		child := e.startWaiterChild(t)

		for range pubsubKills {
			e.subscribed(t)
			before := e.b.reconnects.Load()
			e.admin(t, "client", "kill", "type", "pubsub")
			if !e.k.polls {
				redistest.Eventually(t, callBound, "the waiting Client to reconnect", func() bool {
					return e.b.reconnects.Load() > before
				})
			}
		}
		e.subscribed(t)
		if redistest.AnyClosed(holder.lost()) {
			t.Fatal("hold reported lost after the pub/sub connections were killed")
		}
		mustUnlock(t, holder)
		serve(t, wakeBound, w1, w2)
		child.WaitLine(t, "unlocked", 2*wakeBound)
		e.clean(t, e.name)
	})
}

// subscribedRE finds, in a CLIENT LIST line, the number of channels the
// connection is subscribed to, classic or shard.
var subscribedRE = regexp.MustCompile(` s?sub=(\d+)`)

// subscribed waits until the server of e has two pub/sub connections
// subscribed to a channel (those of the waiters of the other Client and of
// the child process; the holder's Client's waiter waits in memory in
// cohort mode), unless e's kind waits without pub/sub.
func (e *env) subscribed(t *testing.T) {
	t.Helper()
	if e.k.polls {
		return
	}
	redistest.Eventually(t, callBound, "two subscribed pub/sub connections", func() bool {
		list, err := e.admins[0].ClientList(redistest.Ctx(t, callBound)).Result()
		if err != nil {
			t.Fatal(err)
		}
		subscribed := 0
		for _, m := range subscribedRE.FindAllStringSubmatch(list, -1) {
			if n, _ := strconv.Atoi(m[1]); n > 0 {
				subscribed++
			}
		}
		return subscribed >= 2
	})
}
