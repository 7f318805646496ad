package adminfault_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestLatch_restart_from_older_data_brings_back_its_count_and_the_waiters_wait_for_the_lost_count_downs
// restarts the server from data saved (RDB or AOF) before some count-downs:
// the count is the saved one, the count-downs since are lost. A latch
// that opened since is closed again, and a new Await waits; Awaits of two
// Clients waiting across the restart go on waiting. Each returns once the
// lost count-downs are made again.
func TestLatch_restart_from_older_data_brings_back_its_count_and_the_waiters_wait_for_the_lost_count_downs(t *testing.T) {
	for _, p := range persistences {
		t.Run(p.String(), func(t *testing.T) {
			e := newEnvOn(t, faultkit.Latch(), lease, redistest.StartPersistent(t, 1, p))
			ctx := redistest.Ctx(t, redistest.Hang)
			waited, opens := e.Name+"-waited", e.Name+"-opens"
			countDown(t, latch.New(e.A.Nodes[0], waited, 3), 2)
			snap := e.Servers[0].Snapshot(t)
			countDown(t, latch.New(e.A.Nodes[0], waited, 3), 1)
			countDown(t, latch.New(e.A.Nodes[0], opens, 1), 0)
			opened(t, awaitAsync(ctx, latch.New(e.B.Nodes[0], opens, 1)))
			w1, w2 := awaitAsync(ctx, latch.New(e.A.Nodes[0], waited, 3)), awaitAsync(ctx, latch.New(e.B.Nodes[0], waited, 3))
			e.subscribed(t)

			e.Servers[0].RestartFrom(t, snap)
			if n, err := latch.New(e.B.Nodes[0], waited, 3).Count(ctx); n != 2 || err != nil {
				t.Errorf("Count of the waited latch after the restart = %d, %v; want the saved 2", n, err)
			}
			if n, err := latch.New(e.B.Nodes[0], opens, 1).Count(ctx); n != 1 || err != nil {
				t.Errorf("Count of the latch that opened after the save = %d, %v; want 1, closed again", n, err)
			}
			w3 := awaitAsync(ctx, latch.New(e.B.Nodes[0], opens, 1))
			e.subscribed(t)
			countDown(t, latch.New(e.B.Nodes[0], waited, 3), 1)
			for _, w := range []<-chan error{w1, w2, w3} {
				select {
				case err := <-w:
					t.Fatalf("Await returned %v before the lost count-downs were made again", err)
				default:
				}
			}
			countDown(t, latch.New(e.B.Nodes[0], waited, 3), 0)
			countDown(t, latch.New(e.A.Nodes[0], opens, 1), 0)
			opened(t, w1, w2, w3)
		})
	}
}
