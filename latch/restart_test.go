package latch_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestAwait_across_a_Redis_restart restarts the server, empty, under a
// waiter: the count-downs made before are lost, the latch starts afresh,
// and the waiter, subscribed again, is woken by the count-down that opens
// the new one.
func TestAwait_across_a_Redis_restart(t *testing.T) {
	s := redistest.StartServer(t)
	rc := s.Client(t)
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	got := awaitAsync(redistest.Ctx(t, redistest.Hang), latch.New(c, name, 2))
	waitSleeping(t, c, name, 1)
	counter := latch.New(redistest.Lockkit(t, s.Client(t)), name, 2)
	mustCountDown(t, counter, 1)

	s.Restart(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	n, err := counter.Count(ctx)
	if err != nil || n != 2 {
		t.Fatalf("Count after the restart = %d, %v; want 2 (afresh)", n, err)
	}
	mustCountDown(t, counter, 1)
	select {
	case err := <-got:
		t.Fatalf("Await returned %v before the new latch opened", err)
	default:
	}
	// The waiter must be subscribed again before the last count-down, or
	// it would learn of it only from its reconnect.
	redistest.Eventually(t, redistest.Hang, "the waiter to be subscribed again", func() bool {
		chans, err := rc.PubSubNumSub(ctx, channel(c, name)).Result()
		return err == nil && chans[channel(c, name)] == 1
	})
	mustCountDown(t, counter, 0)
	if err := redistest.Receive(t, got, redistest.Hang, "Await to return"); err != nil {
		t.Fatalf("Await after the restart = %v", err)
	}
}
