package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/nodes"
	"github.com/lockkit/lockkit/internal/redistest"
)

// What the tests read of Redis directly, to wait on or to check what the
// command reports.

// keys returns the keys of lock name under prefix, as the library names
// them.
func keys(prefix, name string) core.Keys { return core.NewKeys(prefix, name) }

// reentrantWaiting reports whether a process waits for reentrant lock
// name, subscribed: on the lock's channel (a Cluster client's waiters), or
// on its own channel, registered in the lock's processes.
func reentrantWaiting(t testing.TB, rc redis.UniversalClient, prefix, name string) bool {
	t.Helper()
	k := keys(prefix, name)
	if numSub(t, rc, k.Channel) == 1 {
		return true
	}
	ids, err := rc.ZRange(redistest.Ctx(t, 5*time.Second), k.Procs, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if numSub(t, rc, k.Channel+":"+id) == 1 {
			return true
		}
	}
	return false
}

// numSub returns how many connections are subscribed to channel, on every
// node of a Cluster.
func numSub(t testing.TB, rc redis.UniversalClient, channel string) int64 {
	t.Helper()
	ctx := redistest.Ctx(t, 5*time.Second)
	var (
		mu sync.Mutex
		n  int64
	)
	count := func(ctx context.Context, c redis.Cmdable) error {
		m, err := c.PubSubNumSub(ctx, channel).Result()
		mu.Lock()
		n += m[channel]
		mu.Unlock()
		return err
	}
	if err := nodes.All(ctx, rc, count); err != nil {
		t.Fatal(err)
	}
	return n
}

// zcard returns how many members sorted set key has.
func zcard(t testing.TB, rc redis.UniversalClient, key string) int64 {
	t.Helper()
	n, err := rc.ZCard(redistest.Ctx(t, 5*time.Second), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}
