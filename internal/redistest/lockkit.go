package redistest

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
)

// Lockkit returns a lockkit Client of rc, closed in t.Cleanup (before rc,
// which the starting helpers close in their own cleanup registered
// earlier).
func Lockkit(t testing.TB, rc redis.UniversalClient, opts ...lockkit.Option) *lockkit.Client {
	t.Helper()
	c := lockkit.New(rc, opts...)
	if err := c.Err(); err != nil {
		t.Fatalf("lockkit.New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
