package spin_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// hang bounds every wait that must end; reaching it means the code hangs.
const hang = 20 * time.Second

// testCtx returns a context that ends when the test ends or after hang.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), hang)
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond until it holds, failing the test after hang.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hang)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", hang, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// assertClean checks that nothing of lock name is left in Redis but its
// fencing counter (no TTL, by design) and its released-token set (which
// expires on its own).
func assertClean(t *testing.T, c redis.UniversalClient, name string) {
	t.Helper()
	ctx := context.Background()
	check := func(ctx context.Context, n redis.UniversalClient) error {
		iter := n.Scan(ctx, 0, "*{"+name+"}*", 100).Iterator()
		for iter.Next(ctx) {
			key := iter.Val()
			ttl, err := n.PTTL(ctx, key).Result()
			if err != nil {
				return err
			}
			switch {
			case strings.HasSuffix(key, ":fence"):
			case strings.HasSuffix(key, ":released") && ttl > 0:
			default:
				t.Errorf("key %q left behind (ttl %v)", key, ttl)
			}
		}
		return iter.Err()
	}
	var err error
	if cc, ok := c.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return check(ctx, n) })
	} else {
		err = check(ctx, c)
	}
	if err != nil {
		t.Fatalf("scanning for keys of %q: %v", name, err)
	}
}

// backends runs f against miniredis and a real redis-server.
func backends(t *testing.T, f func(t *testing.T, c *redis.Client)) {
	t.Run("miniredis", func(t *testing.T) {
		_, c := redistest.Mini(t)
		f(t, c)
	})
	t.Run("redis", func(t *testing.T) {
		f(t, redistest.StartServer(t).Client(t))
	})
}

// mustErr fails unless err matches every target.
func mustErr(t *testing.T, err error, targets ...error) {
	t.Helper()
	if err == nil {
		t.Fatalf("got nil error, want one matching %v", targets)
	}
	for _, target := range targets {
		if !errors.Is(err, target) {
			t.Fatalf("error %q does not match %q", err, target)
		}
	}
}
