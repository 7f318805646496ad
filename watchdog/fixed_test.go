package watchdog_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// verifyScript reports whether KEYS[1] exists, changing nothing.
var verifyScript = redis.NewScript(`return redis.call('exists', KEYS[1])`)

// TestWatchdog_verifies_a_Fixed_lease_without_extending_it: two holds
// with a fixed lease of 1.5 s that Script verifies (Lease.Fixed). The one
// whose key is deleted is reported lost (cause nil) when it is verified,
// a third of the way into its lease, not at its end; the other is
// verified too, but not extended: it ends at its lease, with
// ErrLeaseEnded, and its key keeps the TTL it was given.
func TestWatchdog_verifies_a_Fixed_lease_without_extending_it(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	const ttl = 1500 * time.Millisecond
	verified := make(chan watchdog.Round, 1)
	w := watchdog.New(c, watchdog.OnRound(func(r watchdog.Round) {
		select {
		case verified <- r:
		default:
		}
	}))
	t.Cleanup(func() { _ = w.Close() })
	ctx := redistest.Ctx(t, redistest.Hang)
	start := func(key string) <-chan error {
		since := time.Now()
		if err := c.Set(ctx, key, 1, ttl).Err(); err != nil {
			t.Fatal(err)
		}
		lost := make(chan error, 1)
		h := w.Register()
		t.Cleanup(h.Stop)
		h.Start(watchdog.Lease{
			Script: verifyScript, Fixed: true, Keys: []string{key}, TTL: ttl,
			OnLost: func(cause error) { lost <- cause },
		}, since)
		return lost
	}
	kept, gone := redistest.Unique(t)+"-kept", redistest.Unique(t)+"-gone"
	keptLost, goneLost := start(kept), start(gone)
	taken := time.Now()
	if err := c.Del(ctx, gone).Err(); err != nil {
		t.Fatal(err)
	}
	if cause := redistest.Receive(t, goneLost, ttl, "the hold whose key is gone to be reported lost"); cause != nil {
		t.Fatalf("the hold whose key is gone: OnLost(%v), want a nil cause (found gone)", cause)
	}
	if took := time.Since(taken); took >= ttl-watchdog.Margin(ttl) {
		t.Fatalf("the hold whose key is gone was reported lost after %v: at its lease's end, not when verified", took)
	}
	if r := redistest.Receive(t, verified, redistest.Hang, "a round"); r.Renewed+r.Gone == 0 {
		t.Fatalf("round %+v verified nothing", r)
	}
	cause := redistest.Receive(t, keptLost, redistest.Hang, "the kept hold's lease to end")
	if !errors.Is(cause, watchdog.ErrLeaseEnded) {
		t.Fatalf("the kept hold: OnLost(%v), want ErrLeaseEnded", cause)
	}
	// Verified, never extended: the key lapses with the lease it was given.
	redistest.Eventually(t, redistest.Hang, "the kept key to expire", func() bool {
		n, err := c.Exists(ctx, kept).Result()
		return n == 0 && err == nil
	})
}
