package fair_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLock_waiter_whose_subscription_fails_for_longer_than_its_waiter_timeout_keeps_its_place:
// w queues behind a holder, and then its subscription to its channel
// fails (every new connection of its client is refused, the one for its
// attempts open already) for three waiter timeouts (300 ms). w is alive
// and waits the failures out, so its entry must not expire: x, queued
// behind it, does not overtake it, and once the subscription works, w
// takes the lock first at the holder's release.
func TestLock_waiter_whose_subscription_fails_for_longer_than_its_waiter_timeout_keeps_its_place(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	holder := e.held()
	fail := &redistest.FailDials{}
	rc := srv.Client(t)
	rc.AddHook(fail)
	if err := rc.Ping(redistest.Ctx(t, 5*time.Second)).Err(); err != nil { // a connection for the attempts
		t.Fatal(err)
	}
	const wt = 300 * time.Millisecond
	w := e.on(redistest.Lockkit(t, rc)).mutex(lockkit.WithOwner("w"), fair.WithWaiterTimeout(wt))
	fail.Arm(1 << 30)
	gotW := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), w)
	e.waitQueue("w")
	start := serverMillis(t, e.c)
	x := e.mutex(lockkit.WithOwner("x"), fair.WithWaiterTimeout(time.Minute))
	gotX := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), x)
	e.waitQueue("w", "x")

	redistest.Eventually(t, 10*time.Second, "three waiter timeouts to pass on the server", func() bool {
		return serverMillis(t, e.c) > start+3*wt.Milliseconds()
	})
	redistest.NotYet(t, gotW, "w's Lock returned while its subscription failed")
	fail.Arm(0)
	redistest.Eventually(t, 10*time.Second, "w to be subscribed", func() bool {
		n, err := e.c.PubSubNumSub(redistest.Ctx(t, 5*time.Second), channelOf(e.name, "w")).Result()
		return err == nil && n[channelOf(e.name, "w")] == 1
	})
	e.wantQueue("w", "x")
	redistest.MustUnlock(t, holder)
	e.wantTurn(w, gotW, 10*time.Second, "w, first in line", "x")
	e.wantTurn(x, gotX, 10*time.Second, "x, behind w")
}
