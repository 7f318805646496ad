package latch_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestAwait_waits_out_a_subscription_that_fails_for_a_moment: Await on a
// closed latch subscribes to its channel, and that subscription's
// connection fails a few times, as while the server restarts. Await
// waits that out, as it waits out a failed read, and returns once the
// count-down that opens the latch comes, instead of failing at once; the
// failed subscriptions leave nothing behind on the server.
func TestAwait_waits_out_a_subscription_that_fails_for_a_moment(t *testing.T) {
	srv := redistest.StartServer(t)
	fail := &redistest.FailDials{}
	rc := srv.HookedClient(t, fail) // a connection for the reads is open
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	fail.Arm(3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got := awaitAsync(ctx, latch.New(c, name, 1))
	redistest.StillWaits(t, fail, got, "Await")
	waitSleeping(t, c, name, 1)
	mustCountDown(t, latch.New(redistest.Lockkit(t, srv.Client(t)), name, 1), 0)
	if err := redistest.Receive(t, got, redistest.Hang, "Await to return"); err != nil {
		t.Fatalf("Await whose subscription failed for a moment = %v; want nil once the latch opened", err)
	}
	redistest.Eventually(t, redistest.Hang, "the subscription to be dropped", func() bool {
		n, err := rc.PubSubNumSub(ctx, channel(c, name)).Result()
		return err == nil && n[channel(c, name)] == 0
	})
}
