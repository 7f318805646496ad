package latch_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestAwait_returns_when_the_latch_opened_while_its_subscription_was_gone
// kills the pub/sub connection of a sleeping waiter's Client on the
// server and keeps its notifier from connecting again for a few dials;
// the latch opens meanwhile, so its message reaches nobody. The waiter
// reads the count again, as a message may have been lost (when the
// notifier finds its connection broken, or once it is subscribed again),
// and returns.
func TestAwait_returns_when_the_latch_opened_while_its_subscription_was_gone(t *testing.T) {
	srv := redistest.StartServer(t)
	fail := &redistest.FailDials{}
	rc := srv.Client(t)
	rc.AddHook(fail)
	c := redistest.Lockkit(t, rc)
	name, got := sleepingAwait(t, c)
	admin := srv.Client(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	fail.Arm(3)
	if err := admin.ClientKillByFilter(ctx, "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	redistest.Eventually(t, redistest.Hang, "the waiter's subscription to be gone from the server", func() bool {
		n, err := admin.PubSubNumSub(ctx, channel(c, name)).Result()
		return err == nil && n[channel(c, name)] == 0
	})
	mustCountDown(t, latch.New(redistest.Lockkit(t, srv.Client(t)), name, 1), 0)
	if err := redistest.Receive(t, got, redistest.Hang, "Await to return"); err != nil {
		t.Fatalf("Await of a latch that opened while its subscription was gone = %v", err)
	}
}
