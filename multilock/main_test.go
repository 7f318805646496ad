package multilock_test

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
const hang = 30 * time.Second

// testCtx returns a context that ends when the test ends or after hang.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), hang)
	t.Cleanup(cancel)
	return ctx
}

// shortCtx returns a context that ends after d.
func shortCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
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

// lockKey is the Redis key of lock name under the default prefix.
func lockKey(name string) string { return "lockkit:{" + name + "}" }

// assertClean checks that nothing of lock name is left in Redis but its
// fencing counter (no TTL, by design) and its released-token set (which
// expires on its own).
func assertClean(t *testing.T, c redis.UniversalClient, name string) {
	t.Helper()
	ctx := context.Background()
	var left []string
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
				left = append(left, key)
			}
		}
		return iter.Err()
	}
	var err error
	if cc, ok := c.(*redis.ClusterClient); ok {
		// One master at a time, so left needs no lock.
		for _, addr := range clusterMasters(t, cc) {
			n := redis.NewClient(&redis.Options{Addr: addr})
			err = errors.Join(err, check(ctx, n), n.Close())
		}
	} else {
		err = check(ctx, c)
	}
	if err != nil {
		t.Fatalf("scanning for keys of %q: %v", name, err)
	}
	if len(left) > 0 {
		t.Errorf("keys of %q left behind: %q", name, left)
	}
}

// clusterMasters returns the addresses of the cluster's masters.
func clusterMasters(t *testing.T, cc *redis.ClusterClient) []string {
	t.Helper()
	slots, err := cc.ClusterSlots(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var addrs []string
	for _, s := range slots {
		if addr := s.Nodes[0].Addr; !seen[addr] {
			seen[addr] = true
			addrs = append(addrs, addr)
		}
	}
	return addrs
}
