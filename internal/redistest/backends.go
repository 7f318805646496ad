package redistest

import (
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// Backend is a kind of Redis that behaviour tests run against.
type Backend struct {
	// Name names the subtests that run on the backend.
	Name string
	// Client starts a fresh instance of the backend for t and returns a
	// client of it; both are closed in t.Cleanup. The real servers skip
	// the test when redis-server is not installed.
	Client func(t testing.TB) redis.UniversalClient
}

// The backends.
var (
	// MiniBackend is an embedded miniredis, started by [Mini]; [MiniFor]
	// finds the server behind its client.
	MiniBackend = Backend{Name: "miniredis", Client: func(t testing.TB) redis.UniversalClient {
		_, c := Mini(t)
		return c
	}}
	// ServerBackend is a standalone redis-server, started by [StartServer].
	ServerBackend = Backend{Name: "standalone", Client: func(t testing.TB) redis.UniversalClient {
		return StartServer(t).Client(t)
	}}
	// ClusterBackend is a Redis Cluster of three masters, started by
	// [StartCluster].
	ClusterBackend = Backend{Name: "cluster", Client: func(t testing.TB) redis.UniversalClient {
		return StartCluster(t).Client(t)
	}}
)

// Backends returns every backend: miniredis, a standalone server and a
// three-master cluster.
func Backends() []Backend {
	return []Backend{MiniBackend, ServerBackend, ClusterBackend}
}

// SingleNode returns the backends of one node, for what a cluster cannot
// add to: miniredis and a standalone server.
func SingleNode() []Backend {
	return []Backend{MiniBackend, ServerBackend}
}

// RealServers returns the backends of real redis-server processes, for
// what miniredis cannot do, such as a lease that runs out by itself or a
// process killed: a standalone server and a three-master cluster.
func RealServers() []Backend {
	return []Backend{ServerBackend, ClusterBackend}
}

// ForEachBackend runs f as a parallel subtest, named after the backend, on
// each of backends, giving it a client of an instance of its own.
func ForEachBackend(t *testing.T, backends []Backend, f func(t *testing.T, c redis.UniversalClient)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			f(t, b.Client(t))
		})
	}
}

// ForEachBackendName runs test as [ForEachBackend] does, on every backend,
// with a name of its own (see [Unique]), and then fails the test if
// anything under that name is left behind (see [AssertClean]).
func ForEachBackendName(t *testing.T, test func(t *testing.T, c redis.UniversalClient, name string)) {
	t.Helper()
	ForEachBackend(t, Backends(), func(t *testing.T, c redis.UniversalClient) {
		name := Unique(t)
		test(t, c, name)
		AssertClean(t, c, name)
	})
}

// Mini starts an embedded miniredis server and returns it with a go-redis
// client connected to it. Both are closed in t.Cleanup, the client first.
// Mini needs no redis-server and never skips.
func Mini(t testing.TB) (*miniredis.Miniredis, *redis.Client) {
	t.Helper()
	m := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: m.Addr(), Limiter: miniLink{m}})
	t.Cleanup(func() { _ = c.Close() })
	return m, c
}

// MiniFor returns the miniredis behind c when c is a client that [Mini]
// returned, directly or through [MiniBackend]. Tests that run on several
// backends use it for what only miniredis can do, such as moving its clock
// with FastForward or SetTime.
func MiniFor(c redis.UniversalClient) (*miniredis.Miniredis, bool) {
	rc, ok := c.(*redis.Client)
	if !ok {
		return nil, false
	}
	link, ok := rc.Options().Limiter.(miniLink)
	return link.m, ok
}

// miniLink is how a client of [Mini] carries its server, for [MiniFor]:
// it sits in the client's Options as a [redis.Limiter] that allows
// everything, the one option that holds an arbitrary value without
// changing what the client does.
type miniLink struct{ m *miniredis.Miniredis }

// Allow allows every command.
func (miniLink) Allow() error { return nil }

// ReportResult ignores the result.
func (miniLink) ReportResult(error) {}
