package latch_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestAwait_read_whose_reply_was_lost_is_made_again loses the reply of
// Await's first read of an open latch: the failed read does not end the
// wait, and the next one, at the latest a RetryInterval later, finds the
// latch open.
func TestAwait_read_whose_reply_was_lost_is_made_again(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		drop := &redistest.DropReply{Match: redistest.IsScript}
		rc.AddHook(drop)
		l := latch.New(redistest.Lockkit(t, rc), redistest.Unique(t), 1)
		mustCountDown(t, l, 0)
		drop.Arm()
		if err := l.Await(redistest.Ctx(t, redistest.Hang)); err != nil {
			t.Fatalf("Await of an open latch after a lost reply = %v", err)
		}
		if drop.Armed() {
			t.Fatal("no read's reply was lost")
		}
	})
}
