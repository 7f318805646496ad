package redistest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestProxy_delays_cuts_and_heals: commands go through the proxy; with a
// delay a round trip takes at least twice the smallest delay; while cut a
// command gets no reply within its deadline, and after Heal it works again.
func TestProxy_delays_cuts_and_heals(t *testing.T) {
	t.Parallel()
	s := redistest.StartServer(t)
	p := redistest.StartProxy(t, s.Addr())
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Set(redistest.Ctx(t, 5*time.Second), "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET through the proxy: %v", err)
	}

	p.SetDelay(20*time.Millisecond, 30*time.Millisecond)
	start := time.Now()
	if err := c.Get(redistest.Ctx(t, 5*time.Second), "k").Err(); err != nil {
		t.Fatalf("GET with a delay: %v", err)
	}
	// The delay is the fault under test, so its lower bound must show.
	if rtt := time.Since(start); rtt < 40*time.Millisecond {
		t.Fatalf("round trip of %v with a delay of 20–30 ms each way", rtt)
	}
	p.SetDelay(0, 0)

	p.Cut()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := c.Get(ctx, "k").Err(); err == nil || errors.Is(err, redis.Nil) {
		t.Fatalf("GET while cut = %v, want no reply", err)
	}
	p.Heal()
	redistest.Eventually(t, 10*time.Second, "a GET after Heal", func() bool {
		v, err := c.Get(redistest.Ctx(t, 5*time.Second), "k").Result()
		return err == nil && v == "v"
	})
}
