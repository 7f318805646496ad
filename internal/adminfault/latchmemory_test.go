package adminfault_test

import (
	"strings"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestLatch_with_the_memory_full_the_opening_count_down_wakes_the_waiters
// fills the server's memory (maxmemory with noeviction) while Awaits of
// two Clients wait on a latch counted down once: the count-down that
// opens it is made (it takes no memory) and wakes both waiters, and the
// first count-down of a fresh latch fails with the server's OOM error and
// leaves nothing (or counts, where Redis lets its script write).
func TestLatch_with_the_memory_full_the_opening_count_down_wakes_the_waiters(t *testing.T) {
	e := latchEnv(t)
	w1, w2 := e.halfCounted(t)

	e.fill(t, "noeviction")
	fresh := e.Name + "-fresh"
	if _, err := latch.New(e.B.Nodes[0], fresh, 2).CountDown(redistest.Ctx(t, callBound)); err != nil {
		if !strings.Contains(err.Error(), "OOM") {
			t.Errorf("CountDown of a fresh latch with the memory full = %v, want the server's OOM error", err)
		}
		e.Clean(t, fresh)
	}
	countDown(t, latch.New(e.B.Nodes[0], e.Name, 2), 0)
	opened(t, w1, w2)
}
