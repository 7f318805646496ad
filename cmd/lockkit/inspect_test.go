package main

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// What the tests read of Redis directly, to wait on or to check what the
// command reports.

// keys returns the keys of lock name under prefix, as the library names
// them.
func keys(prefix, name string) core.Keys { return core.NewKeys(prefix, name, false) }

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
// node of a Cluster, as show counts them.
func numSub(t testing.TB, rc redis.UniversalClient, channel string) int64 {
	t.Helper()
	subs := []Subscribers{{Channel: channel}}
	if err := countSubscribers(redistest.Ctx(t, 5*time.Second), rc, subs); err != nil {
		t.Fatal(err)
	}
	return subs[0].Count
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
