package latch_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestAwait_leaves_no_subscription_behind checks, on the server, that an
// Await that returned, because the latch opened or because its ctx ended,
// is no longer subscribed to the latch's channel.
func TestAwait_leaves_no_subscription_behind(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	c := redistest.Lockkit(t, rc)
	ctx := redistest.Ctx(t, redistest.Hang)
	subscribers := func(name string) func() bool {
		return func() bool {
			n, err := rc.PubSubNumSub(ctx, channel(c, name)).Result()
			return err == nil && n[channel(c, name)] == 0
		}
	}

	name, got := sleepingAwait(t, c)
	mustCountDown(t, latch.New(c, name, 1), 0)
	if err := redistest.Receive(t, got, redistest.Hang, "Await to return"); err != nil {
		t.Fatalf("Await = %v", err)
	}
	redistest.Eventually(t, redistest.Hang, "the opened latch's subscription to be dropped", subscribers(name))

	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	other := redistest.Unique(t)
	redistest.WantErr(t, latch.New(c, other, 1).Await(short), lockkit.ErrNotObtained, context.DeadlineExceeded)
	redistest.Eventually(t, redistest.Hang, "the given-up wait's subscription to be dropped", subscribers(other))
}
