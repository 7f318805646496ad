package watchdog_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// TestWatchdog_renews_ten_thousand_holds_in_a_few_round_trips checks the
// cost of keeping many locks: 10 000 holds taken together are renewed in
// pipelines of many holds each, not one round trip per hold, and none is
// lost. (Unloaded, it is one pipeline a renewal period: six for two
// leases. The holds are started one by one, so on a loaded machine the
// first rounds may catch them in a few groups; rounds that miss their time
// are retried whole.)
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
	var (
		mu     sync.Mutex
		rounds []watchdog.Round
	)
	w := watchdog.New(c, watchdog.OnRound(func(r watchdog.Round) {
		mu.Lock()
		rounds = append(rounds, r)
		mu.Unlock()
	}))
	t.Cleanup(func() { _ = w.Close() })
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
	mu.Lock()
	defer mu.Unlock()
	renewed := 0
	for _, r := range rounds {
		renewed += r.Renewed
	}
	if renewed < 2*n {
		t.Errorf("%d renewals in %d rounds over two leases, want every hold renewed at least twice", renewed, len(rounds))
	}
	if got := pipes.sent.Load(); got == 0 || got*100 > int64(renewed) {
		t.Errorf("%d pipelines for %d renewals, want at least 100 renewals a pipeline", got, renewed)
	}
	t.Logf("%d rounds, %d pipelines renewed %d holds over two leases", len(rounds), pipes.sent.Load(), n)
	if left, err := c.Exists(ctx, keys[0], keys[n-1]).Result(); err != nil || left != 2 {
		t.Fatalf("%d of 2 sampled keys left after two leases (%v): the renewals did not take", left, err)
	}
}
