package watchdog_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// TestWatchdog_renews_ten_thousand_holds_in_a_few_round_trips checks the
// cost of keeping many locks: 10 000 holds taken together are renewed in
// one pipeline per renewal period (ttl/3), not one round trip per hold,
// and none is lost.
func TestWatchdog_renews_ten_thousand_holds_in_a_few_round_trips(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	ctx := context.Background()
	const n, ttl = 10000, 3 * time.Second
	keys := make([]string, n)
	pipe := c.Pipeline()
	for i := range keys {
		keys[i] = redistest.Unique(t)
		pipe.Set(ctx, keys[i], 1, ttl)
	}
	since := time.Now()
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	pipes := &pipelineCounter{}
	c.AddHook(pipes)
	w := newWatchdog(t, c)
	lost := make(chan error, n)
	holds := make([]*watchdog.Hold, n)
	for i, key := range keys {
		holds[i] = w.Register()
		holds[i].Start(lease(key, ttl, lost), since)
	}
	// Two leases: six renewal periods.
	wantNoLoss(t, lost, 2*ttl, "hold lost")
	for _, h := range holds {
		h.Stop()
	}
	t.Logf("%d pipelines renewed %d holds over two leases", pipes.n.Load(), n)
	if got := pipes.n.Load(); got > 2*6 {
		t.Fatalf("%d pipelines to renew %d holds over 6 renewal periods, want at most 2 a period", got, n)
	}
	if left, err := c.Exists(ctx, keys[0], keys[n-1]).Result(); err != nil || left != 2 {
		t.Fatalf("%d of 2 sampled keys left after two leases (%v): the renewals did not take", left, err)
	}
}
