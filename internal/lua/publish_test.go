package lua_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/lua"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// TestPublish_shard_channels checks the prelude's publish: a channel with
// the shard mark goes out with SPUBLISH where the server has it (Redis 7)
// and reaches a shard subscriber, and with PUBLISH elsewhere (miniredis
// stands for a server before Redis 7), reaching a classic subscriber; an
// unmarked channel is published with PUBLISH.
func TestPublish_shard_channels(t *testing.T) {
	const key, ch = "lockkit:{p}", "lockkit:{p}:ch"
	publish := func(t *testing.T, rc redis.UniversalClient, ps *redis.PubSub, channel string) {
		t.Helper()
		defer ps.Close()
		ctx := redistest.Ctx(t, 5*time.Second)
		if _, err := ps.Receive(ctx); err != nil { // the confirmation
			t.Fatal(err)
		}
		n, err := lua.Publish.Run(ctx, rc, []string{key}, channel, "1").Int64()
		if err != nil || n != 1 {
			t.Fatalf("publish on %q = %d, %v; want 1 subscriber", channel, n, err)
		}
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil || msg.Channel != ch || msg.Payload != "1" {
			t.Fatalf("received %+v, %v; want '1' on %s", msg, err, ch)
		}
	}
	t.Run("redis-server", func(t *testing.T) {
		rc := redistest.StartServer(t).Client(t)
		publish(t, rc, rc.SSubscribe(redistest.Ctx(t, 5*time.Second), ch), notify.ShardMark+ch)
		publish(t, rc, rc.Subscribe(redistest.Ctx(t, 5*time.Second), ch), ch)
	})
	t.Run("miniredis", func(t *testing.T) {
		_, rc := redistest.Mini(t)
		publish(t, rc, rc.Subscribe(redistest.Ctx(t, 5*time.Second), ch), notify.ShardMark+ch)
	})
}
