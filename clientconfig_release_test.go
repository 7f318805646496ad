package lockkit_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestClientConfig_a_release_with_an_ended_ctx_frees_the_lock_with_each_client_configuration
// checks, for every kind and every client configuration (ContextTimeoutEnabled,
// which hands ctx to the connection, among them), that a release given
// a ctx cancelled already still runs, as documented, and leaves nothing
// of the lock in Redis.
func TestClientConfig_a_release_with_an_ended_ctx_frees_the_lock_with_each_client_configuration(t *testing.T) {
	srv := redistest.StartServer(t)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, cc := range clientConfigs {
		t.Run(cc.name, func(t *testing.T) {
			for _, k := range configKinds {
				if k.kind == "latch" {
					continue // a count-down is no release
				}
				t.Run(k.kind, func(t *testing.T) {
					t.Parallel()
					rc := cc.client(t, redis.Options{Addr: srv.Addr()})
					name := redistest.Unique(t)
					release, err := k.hold(redistest.Ctx(t, redistest.Hang), redistest.Lockkit(t, rc), name)
					if err != nil {
						t.Fatalf("hold: %v", err)
					}
					if err := release(ended); err != nil {
						t.Fatalf("release with an ended ctx = %v; want nil", err)
					}
					for _, n := range []string{name, name + ":a", name + ":b"} {
						redistest.AssertClean(t, rc, n)
					}
				})
			}
		})
	}
}
