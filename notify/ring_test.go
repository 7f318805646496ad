package notify_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// TestRing_waiter_outlives_a_stall_that_marks_its_shard_down: on a Ring
// client, a connection found dead is replaced at the shard of its
// channels, also while the Ring counts that shard as down (it stalled
// longer than the Ring's heartbeats allow). Once the server answers again
// the channel is subscribed there and a release reaches the waiter.
func TestRing_waiter_outlives_a_stall_that_marks_its_shard_down(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redis.NewRing(&redis.RingOptions{
		Addrs:              map[string]string{"only": srv.Addr()},
		HeartbeatFrequency: 50 * time.Millisecond,
		ReadTimeout:        100 * time.Millisecond,
	})
	t.Cleanup(func() { _ = c.Close() })
	ch, w, got, disconnects := healthCheckedSleeper(t, c)
	srv.Stall(t, 3*time.Second)
	redistest.Receive(t, disconnects, redistest.Hang, "the dead connection to be found")
	if err := redistest.Receive(t, got, redistest.Hang, "the waiter to be woken to re-check"); err != nil {
		t.Fatalf("WaitTurn = %v", err)
	}
	redistest.Eventually(t, redistest.Hang, "a release to reach the waiter after the stall", func() bool {
		// A publish sent while the server still stalls times out.
		return c.Publish(t.Context(), ch, notify.WakeOne).Err() == nil && woken(w, 200*time.Millisecond)
	})
}
