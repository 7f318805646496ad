package fair_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

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
	fail := &redistest.FailDials{}
	waiterKeepsPlace(t, fail, func() { fail.Arm(1 << 30) }, func() { fail.Arm(0) })
}

// waiterKeepsPlace queues w behind a holder, with its subscription to its
// channel hindered by hook (added to w's go-redis client, whose connection
// for the attempts is open already) from block until unblock, which it
// calls once three waiter timeouts (300 ms) have passed with x queued
// behind w. w is alive, so its entry must not expire: x does not overtake
// it, and once the subscription goes through, w takes the lock first at
// the holder's release.
func waiterKeepsPlace(t *testing.T, hook redis.Hook, block, unblock func()) {
	t.Helper()
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	holder := e.held()
	rc := srv.HookedClient(t, hook) // a connection for the attempts is open
	const wt = 300 * time.Millisecond
	w := e.on(redistest.Lockkit(t, rc)).mutex(lockkit.WithOwner("w"), fair.WithWaiterTimeout(wt))
	block()
	t.Cleanup(unblock)
	gotW := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), w)
	e.waitQueue("w")
	start := serverMillis(t, e.c)
	x := e.mutex(lockkit.WithOwner("x"), fair.WithWaiterTimeout(time.Minute))
	gotX := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), x)
	e.waitQueue("w", "x")

	redistest.Eventually(t, 10*time.Second, "three waiter timeouts to pass on the server", func() bool {
		return serverMillis(t, e.c) > start+3*wt.Milliseconds()
	})
	redistest.NotYet(t, gotW, "w's Lock returned while its subscription could not go through")
	e.wantQueue("w", "x")
	unblock()
	redistest.Eventually(t, 10*time.Second, "w to be subscribed", func() bool {
		n, err := e.c.PubSubNumSub(redistest.Ctx(t, 5*time.Second), channelOf(e.name, "w")).Result()
		return err == nil && n[channelOf(e.name, "w")] == 1
	})
	e.wantQueue("w", "x")
	redistest.MustUnlock(t, holder)
	e.wantTurn(w, gotW, 10*time.Second, "w, first in line", "x")
	e.wantTurn(x, gotX, 10*time.Second, "x, behind w")
}

// TestLock_waiter_whose_subscription_fails_takes_the_lock_at_its_turn: w,
// first in line, cannot subscribe to its channel (every new connection of
// its client is refused) when the holder releases the lock, so the
// release's wake-up reaches nobody. w's attempts between its
// subscriptions take the lock all the same, within a heartbeat (a third of
// its waiter timeout of 3 s), not once the subscription works.
func TestLock_waiter_whose_subscription_fails_takes_the_lock_at_its_turn(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	holder := e.held()
	fail := &redistest.FailDials{}
	rc := srv.HookedClient(t, fail) // a connection for the attempts is open
	w := e.on(redistest.Lockkit(t, rc)).mutex(lockkit.WithOwner("w"), fair.WithWaiterTimeout(3*time.Second))
	fail.Arm(1 << 30)
	t.Cleanup(func() { fail.Arm(0) })
	gotW := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), w)
	e.waitQueue("w")
	redistest.MustUnlock(t, holder)
	acquired(t, gotW, 5*time.Second, "w, whose subscription fails")
	if n := fail.Left(); n >= 1<<30 {
		t.Fatal("w took the lock without trying to subscribe")
	}
	e.wantQueue()
	redistest.MustUnlock(t, w)
}

// TestLock_waiter_whose_subscription_is_held_up_keeps_its_place: as above,
// but w's subscription neither fails nor is confirmed (every new
// connection of its client is held up, as by a server that accepts
// nothing for a while) for three waiter timeouts: w attempts every
// heartbeat meanwhile, so x does not overtake it, and w takes the lock
// first at the holder's release once the subscription goes through.
func TestLock_waiter_whose_subscription_is_held_up_keeps_its_place(t *testing.T) {
	stall := &redistest.StallDials{}
	waiterKeepsPlace(t, stall, stall.On, stall.Off)
}
