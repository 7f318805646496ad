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
// name (see waitingOn).
func reentrantWaiting(t testing.TB, rc redis.UniversalClient, prefix, name string) bool {
	k := keys(prefix, name)
	return waitingOn(t, rc, k.Channel, k.Procs)
}

// writersWaiting reports whether a writer waits for read-write lock name
// (see waitingOn).
func writersWaiting(t testing.TB, rc redis.UniversalClient, prefix, name string) bool {
	k := keys(prefix, name)
	return waitingOn(t, rc, k.Sub("wch"), k.Sub("wprocs"))
}

// waitingOn reports whether a process waits, subscribed, for the releases
// published on channel ch: on ch itself (where every waiting process is
// woken), or on its own ch:ID, registered in the sorted set procs.
func waitingOn(t testing.TB, rc redis.UniversalClient, ch, procs string) bool {
	t.Helper()
	if numSub(t, rc, ch) == 1 {
		return true
	}
	ids, err := rc.ZRange(redistest.Ctx(t, 5*time.Second), procs, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if numSub(t, rc, ch+":"+id) == 1 {
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
