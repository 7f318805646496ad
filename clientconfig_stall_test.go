package lockkit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestClientConfig_with_no_read_timeout_every_call_returns_by_its_ctx_against_a_stalled_server
// stalls the server under Clients whose go-redis client has no read or
// write timeout (-1: none; -2: no deadline set on the connection at all),
// so that nothing but the ctx can end a call: a Lock (a latch's Await) of
// every kind returns at its 300 ms deadline, long before the 3 s stall
// ends, and the Client's Close,
// which waits for the clean-ups the calls left behind, returns once the
// server answers again.
func TestClientConfig_with_no_read_timeout_every_call_returns_by_its_ctx_against_a_stalled_server(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, timeout := range []time.Duration{-1, -2} {
		t.Run(fmt.Sprintf("ReadTimeout_%d", timeout), func(t *testing.T) {
			rc := redis.NewClient(&redis.Options{Addr: srv.Addr(), ReadTimeout: timeout, WriteTimeout: timeout})
			t.Cleanup(func() { _ = rc.Close() })
			lc := redistest.Lockkit(t, rc)
			calls := map[string]func(context.Context) error{}
			for _, k := range configKinds {
				name := redistest.Unique(t)
				take := k.hold
				if k.kind == "latch" {
					take = k.wait // a latch's hold sends nothing
				}
				calls[k.kind] = func(ctx context.Context) error { _, err := take(ctx, lc, name); return err }
			}
			const stall = 3 * time.Second
			srv.Stall(t, stall)
			start := time.Now()
			redistest.WantDeadlines(t, 300*time.Millisecond, calls)
			if took := time.Since(start); took >= stall-time.Second {
				t.Errorf("the calls took %v, till about the stall's end; want their 300 ms deadline", took)
			}
			closed := make(chan error, 1)
			go func() { closed <- lc.Close() }()
			if err := redistest.Receive(t, closed, redistest.Hang, "Close to return"); err != nil {
				t.Fatalf("Close = %v", err)
			}
		})
	}
}
