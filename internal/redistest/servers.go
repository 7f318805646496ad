package redistest

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
)

// Server is one redis-server process started by the harness on a free
// 127.0.0.1 port, with persistence disabled (--save "" --appendonly no)
// unless started by StartPersistent, DEBUG allowed from loopback, and its
// own temporary directory. It is killed in t.Cleanup of the test that
// started it.
type Server struct {
	dir     string
	logPath string
	cluster bool // run as a Redis Cluster node
	// clusterArgs are the cluster settings of a cluster node's command
	// line (see Cluster).
	clusterArgs []string
	// persist is how a server started by StartPersistent keeps its data;
	// nil for none.
	persist *Persistence
	port    int  // fixed by the first start, reused by Restart
	bus     bool // its cluster bus port is claimed with it (see claimPort)

	mu     sync.Mutex
	proc   *process // running process, nil when stopped
	closed bool     // set by cleanup; no more starts
}

// StartServer starts a standalone redis-server and waits until it answers.
// It skips the test when redis-server is not installed (see the package
// documentation).
func StartServer(t testing.TB) *Server {
	t.Helper()
	return StartMasters(t, 1)[0]
}

// StartMasters starts n independent standalone redis-servers concurrently
// and waits until each answers. It skips the test when redis-server is not
// installed.
func StartMasters(t testing.TB, n int) []*Server {
	t.Helper()
	return startServers(t, n, nil)
}

// startServers creates n servers, all killed in t.Cleanup, and starts them
// concurrently. With clusterArgs (cluster settings such as
// --cluster-node-timeout) they are cluster nodes, otherwise standalone.
func startServers(t testing.TB, n int, clusterArgs []string) []*Server {
	t.Helper()
	return launchServers(t, n, func(s *Server) { s.clusterArgs = clusterArgs }, clusterArgs != nil)
}

// launchServers starts n servers concurrently, each set up by prepare
// first (cluster: as cluster nodes).
func launchServers(t testing.TB, n int, prepare func(*Server), cluster bool) []*Server {
	t.Helper()
	bin := requireRedis(t)
	servers := make([]*Server, n)
	for i := range servers {
		servers[i] = newServer(t, cluster)
		prepare(servers[i])
	}
	var g errgroup.Group
	for _, s := range servers {
		g.Go(func() error { return s.start(bin) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return servers
}

// newServer prepares a server in its own temporary directory and registers
// its cleanup. The directory is removed after the process is gone because
// cleanups run last-registered first.
func newServer(t testing.TB, cluster bool) *Server {
	dir := t.TempDir()
	s := &Server{dir: dir, logPath: filepath.Join(dir, "redis.log"), cluster: cluster}
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.closed = true
		if s.proc != nil {
			if err := s.proc.kill(); err != nil {
				t.Errorf("redistest: cleanup of redis-server %s: %v", s.Addr(), err)
			}
			s.proc = nil
		}
		if s.port != 0 {
			releasePort(s.port, s.bus)
		}
	})
	return s
}

// Addr returns the server's address, "127.0.0.1:PORT". It stays the same
// across [Server.Restart].
func (s *Server) Addr() string { return hostPort(s.port) }

// Client returns a new go-redis client for the server with default
// options. It is closed in t.Cleanup.
func (s *Server) Client(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// HookedClient returns a client of s (see Client) with hook added and one
// connection open already, for commands: a hook that fails or holds up
// the dials (FailDials, StallDials) then hinders only the connections
// opened later, such as a pub/sub one.
func (s *Server) HookedClient(t testing.TB, hook redis.Hook) *redis.Client {
	t.Helper()
	c := s.Client(t)
	c.AddHook(hook)
	if err := c.Ping(Ctx(t, 5*time.Second)).Err(); err != nil {
		t.Fatal(err)
	}
	return c
}

// Patient returns a go-redis client of addr (a server's, or a [Proxy]'s)
// that waits a minute for a reply and retries a failed dial every second
// for a minute, as a client configured for a slow network does: a call
// that does not bound its own wait by its ctx is held that long while the
// server cannot answer. It is closed in t.Cleanup.
func Patient(t testing.TB, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: time.Minute, WriteTimeout: time.Minute,
		MaxRetries: 60, MinRetryBackoff: time.Second, MaxRetryBackoff: time.Second})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// running reports whether the server's process is running: it was
// started and neither stopped nor killed since.
func (s *Server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc != nil && !s.proc.exited()
}

// Stop stops the server gracefully with SIGTERM and waits for the process
// to exit; a stalled server exits once its stall is over. Stopping a
// stopped server does nothing.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.halt(t, syscall.SIGTERM)
}

// Kill kills the server with SIGKILL and waits for the process to exit.
// Killing a stopped server does nothing.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	s.halt(t, syscall.SIGKILL)
}

// halt sends sig to the running process and waits for it to be reaped.
func (s *Server) halt(t testing.TB, sig os.Signal) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	s.proc.signal(sig)
	if err := s.proc.wait(stopTimeout); err != nil {
		t.Fatalf("redistest: stopping redis-server %s: %v; log:%s", s.Addr(), err, tail(s.logPath, 0))
	}
	s.proc = nil
}

// Restart starts the server again on the same port with an empty data set
// and waits until it answers. A running server is killed first and fully
// reaped before the new process starts. A cluster node keeps its cluster
// configuration file and so rejoins its cluster with its old identity and
// slots, but without data. A server started by StartPersistent loads
// what its files hold (see Server.RestartFrom).
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.relaunch(t, "Restart", nil)
}

// relaunch kills the server, if it runs, and starts it again on the same
// port once between (if not nil) has run. op names the caller in errors.
func (s *Server) relaunch(t testing.TB, op string, between func()) {
	t.Helper()
	bin := requireRedis(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		t.Fatalf("redistest: %s of redis-server %s after its test's cleanup", op, s.Addr())
	}
	if s.proc != nil {
		if err := s.proc.kill(); err != nil {
			t.Fatalf("redistest: restarting redis-server %s: %v", s.Addr(), err)
		}
		s.proc = nil
	}
	if between != nil {
		between()
	}
	if err := s.launch(bin, s.port); err != nil {
		t.Fatal(err)
	}
}

// RestartHolding moves the fencing counter of lock m on by a few holds,
// leaves m holding it, and restarts s empty, checking that the counter
// (PREFIX:{NAME}:fence with the default prefix) is gone. It returns the
// token m held before the restart: a test of fencing across a restart
// that lost the data then checks that later tokens are larger.
func (s *Server) RestartHolding(t testing.TB, m interface {
	NamedLocker
	Token() int64
}) int64 {
	t.Helper()
	for range 3 {
		MustLock(t, m)
		MustUnlock(t, m)
	}
	MustLock(t, m)
	before := m.Token()
	s.Restart(t) // no persistence: the lock and its counter are gone
	fence := "lockkit:{" + m.Name() + "}:fence"
	if n, err := s.Client(t).Exists(Ctx(t, 5*time.Second), fence).Result(); n != 0 || err != nil {
		t.Fatalf("redistest: EXISTS %s after the restart = %d, %v; want 0", fence, n, err)
	}
	return before
}
