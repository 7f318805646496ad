package failover_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// closingClient returns a lockkit Client of rc whose holds have a lease
// of longLease, for a test that closes it (a cleanup closes it too, and
// ignores the error), and a Client of another go-redis client of d, for
// the other owners.
func closingClient(t *testing.T, d deployment, rc redis.UniversalClient) (lc, others *lockkit.Client) {
	t.Helper()
	lc = lockkit.New(rc, lockkit.WithWatchdogTimeout(longLease))
	t.Cleanup(func() { _ = lc.Close() })
	return lc, redistest.Lockkit(t, d.client(t))
}
