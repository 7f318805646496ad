package redistest

import (
	"testing"

	"github.com/redis/go-redis/v9"
)

// Backend is a kind of Redis that behaviour tests run against.
type Backend struct {
	// Name names the subtests that run on the backend.
	Name string
	// Client starts a fresh instance of the backend for t and returns a
	// client of it; both are closed in t.Cleanup. The real servers call
	// [Require] first.
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
