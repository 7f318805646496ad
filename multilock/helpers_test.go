package multilock_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// lockKey is the Redis key of lock name under the default prefix.
func lockKey(name string) string { return "lockkit:{" + name + "}" }

// lockkits returns a lockkit Client of each of clients, closed in
// t.Cleanup.
func lockkits(t testing.TB, clients []redis.UniversalClient) []*lockkit.Client {
	t.Helper()
	lcs := make([]*lockkit.Client, len(clients))
	for i, c := range clients {
		lcs[i] = redistest.Lockkit(t, c)
	}
	return lcs
}
