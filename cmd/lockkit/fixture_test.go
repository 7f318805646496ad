package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// fixture is what a test of the command on one lock starts from: the
// command connected to a deployment, a lockkit Client of it whose locks
// use a prefix unique to the test, a unique lock name and a 30 s ctx.
type fixture struct {
	cli
	rc     redis.UniversalClient
	lc     *lockkit.Client // the test's own process
	prefix string
	name   string
	ctx    context.Context
}

// newFixture returns a fixture on the deployment rc talks to.
func newFixture(t *testing.T, rc redis.UniversalClient) *fixture {
	t.Helper()
	lc, prefix := prefixed(t, rc)
	return &fixture{cli: cliFor(t, rc), rc: rc, lc: lc, prefix: prefix,
		name: redistest.Unique(t), ctx: redistest.Ctx(t, 30*time.Second)}
}

// forEachBackend runs test as a subtest on a fixture of each of backends.
func forEachBackend(t *testing.T, test func(t *testing.T, f *fixture)) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		test(t, newFixture(t, rc))
	})
}

// process returns another lockkit Client of the fixture's deployment,
// with its prefix: another process, with a pub/sub connection of its own.
func (f *fixture) process(t *testing.T) *lockkit.Client {
	t.Helper()
	return redistest.Lockkit(t, f.rc, lockkit.WithPrefix(f.prefix))
}

// hash returns the fields of the fixture's lock hash.
func (f *fixture) hash(t *testing.T) map[string]string {
	t.Helper()
	h, err := f.rc.HGetAll(f.ctx, keys(f.prefix, f.name).Base).Result()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// prefixed returns a lockkit Client of rc whose locks use a prefix unique
// to the test, and the prefix.
func prefixed(t testing.TB, rc redis.UniversalClient) (*lockkit.Client, string) {
	t.Helper()
	prefix := "cli-" + redistest.Unique(t)
	return redistest.Lockkit(t, rc, lockkit.WithPrefix(prefix)), prefix
}

// waitInBackground runs lock in a goroutine, bounded by a 30 s ctx that
// the test's end cancels, and returns a channel receiving its error.
func waitInBackground(t testing.TB, lock func(context.Context) error) <-chan error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	done := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done <- lock(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-finished
	})
	return done
}

// waitingInBackground runs lock as waitInBackground does and returns once
// waiting reports that it waits (queued or subscribed in Redis), failing
// the test if it does not within 10 s.
func waitingInBackground(t testing.TB, what string, lock func(context.Context) error, waiting func() bool) <-chan error {
	t.Helper()
	done := waitInBackground(t, lock)
	redistest.Eventually(t, 10*time.Second, what, waiting)
	return done
}

// names returns n unique lock names; on a Cluster their keys live on n
// distinct masters (n ≤ 3).
func names(t testing.TB, rc redis.UniversalClient, n int) []string {
	t.Helper()
	if cc, ok := rc.(*redis.ClusterClient); ok {
		return redistest.NamesOnDistinctMasters(t, cc, n)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = redistest.Unique(t)
	}
	return out
}
