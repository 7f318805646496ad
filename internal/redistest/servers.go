package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
)

const (
	// readyTimeout bounds the wait for a freshly started redis-server to
	// answer.
	readyTimeout = 10 * time.Second
	// probeTimeout bounds each command the harness sends for itself.
	probeTimeout = time.Second
	// startAttempts is how many fresh ports a first start tries when
	// another process takes the chosen port first.
	startAttempts = 5
	// stallStartTimeout bounds the wait for a server to begin a stall.
	stallStartTimeout = 10 * time.Second
	// stallSlack is how long past its end the connection of a stall waits
	// for the reply to DEBUG SLEEP.
	stallSlack = 10 * time.Second
	// requireEnv names the environment variable that turns a missing
	// redis-server from a skipped test into a failed one when it is "1".
	requireEnv = "LOCKKIT_REQUIRE_REDIS"
)

// errPortInUse marks a start that failed because the port was taken.
var errPortInUse = errors.New("port already in use")

// Server is one redis-server process started by the harness on a free
// 127.0.0.1 port, with persistence disabled (--save "" --appendonly no),
// DEBUG allowed from loopback, and its own temporary directory. It is
// killed in t.Cleanup of the test that started it.
type Server struct {
	dir     string
	logPath string
	cluster bool // run as a Redis Cluster node
	// clusterArgs are the cluster settings of a cluster node's command
	// line (see Cluster).
	clusterArgs []string
	port        int // fixed by the first start, reused by Restart

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
	bin := requireRedis(t)
	servers := make([]*Server, n)
	for i := range servers {
		servers[i] = newServer(t, clusterArgs != nil)
		servers[i].clusterArgs = clusterArgs
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
// slots, but without data.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	bin := requireRedis(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		t.Fatalf("redistest: Restart of redis-server %s after its test's cleanup", s.Addr())
	}
	if s.proc != nil {
		if err := s.proc.kill(); err != nil {
			t.Fatalf("redistest: restarting redis-server %s: %v", s.Addr(), err)
		}
		s.proc = nil
	}
	if err := s.launch(bin, s.port); err != nil {
		t.Fatal(err)
	}
}

// Stall makes the server stop answering for d, as a process paused by a
// long garbage collection or a swapped-out host would: connections stay
// open, nothing is lost, and every command waits. It sends DEBUG SLEEP on a
// connection of its own and returns once the server has read it, so that
// every command sent after Stall returns is served only when the stall is
// over. The stall ends by itself after d; the test's cleanup closes the
// connection without waiting for the end.
//
// Stall fails the test if the stall is over before it returns, so d should
// be a second or more. [Server.Kill] ends a stall at once, [Server.Stop]
// waits for it to end. Seeing the server read the command takes
// /proc/net/tcp, so Stall skips the test outside Linux.
func (s *Server) Stall(t testing.TB, d time.Duration) {
	t.Helper()
	if !canWatchSockets {
		t.Skip("redistest: Stall watches sockets through /proc/net/tcp, which only Linux has")
	}
	var conn atomic.Pointer[countingConn]
	c := redis.NewClient(&redis.Options{
		Addr: s.Addr(),
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			cc := &countingConn{Conn: nc}
			if !conn.CompareAndSwap(nil, cc) {
				nc.Close()
				return nil, errors.New("redistest: a stall has one connection")
			}
			return cc, nil
		},
		DialTimeout:   probeTimeout,
		DialerRetries: 1,
		PoolSize:      2,  // see adminClient
		MaxRetries:    -1, // a resent DEBUG SLEEP would stall the server twice
		ReadTimeout:   d + stallSlack,
	})
	// The first command opens the connection and completes the handshake,
	// so that the next bytes written are DEBUG SLEEP.
	if err := c.Ping(Ctx(t, probeTimeout)).Err(); err != nil {
		_ = c.Close()
		t.Fatalf("redistest: Stall of redis-server %s: %v", s.Addr(), err)
	}
	cc := conn.Load()
	before := cc.written.Load()
	var (
		finished = make(chan struct{})
		stallErr error // written before finished is closed
	)
	go func() {
		defer close(finished)
		secs := strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
		stallErr = c.Do(context.Background(), "debug", "sleep", secs).Err()
	}()
	t.Cleanup(func() {
		_ = c.Close() // ends the wait for the reply at once
		<-finished
	})

	err := s.waitRead(cc, before, finished)
	if err == nil {
		select {
		case <-finished:
			err = errStallOver
		default:
		}
	}
	if errors.Is(err, errStallOver) {
		if stallErr != nil {
			err = stallErr
		} else {
			err = fmt.Errorf("the stall of %v was over before Stall returned; stall for longer", d)
		}
	}
	if err != nil {
		t.Fatalf("redistest: Stall of redis-server %s: %v", s.Addr(), err)
	}
}

// waitRead waits until the server has read what cc writes after its first
// before bytes, and returns errStallOver if over is closed first. Redis
// runs a command as soon as it has read it. It has read it once the bytes
// were written, acknowledged by its kernel (the send queue of cc's end is
// empty) and then, looking again, taken off the receive queue of its end.
func (s *Server) waitRead(cc *countingConn, before int64, over <-chan struct{}) error {
	local := cc.LocalAddr().(*net.TCPAddr).Port
	err := pollUntil(over, stallStartTimeout, "the write", func() (bool, error) {
		return cc.written.Load() > before, nil
	})
	if err == nil {
		err = pollUntil(over, stallStartTimeout, "its delivery", func() (bool, error) {
			tx, _, err := tcpQueues(local, s.port)
			return tx == 0, err
		})
	}
	if err == nil {
		err = pollUntil(over, stallStartTimeout, "the server reading it", func() (bool, error) {
			_, rx, err := tcpQueues(s.port, local)
			return rx == 0, err
		})
	}
	return err
}

// errStallOver is what pollUntil returns when the stall ended first.
var errStallOver = errors.New("stall over")

// pollUntil calls cond every millisecond until it reports true or fails,
// and returns errStallOver if over is closed first, or an error naming
// what it waited for after timeout.
func pollUntil(over <-chan struct{}, timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if ok, err := cond(); ok || err != nil {
			return err
		}
		select {
		case <-over:
			return errStallOver
		case <-deadline.C:
			return fmt.Errorf("no sign of %s within %v", what, timeout)
		case <-tick.C:
		}
	}
}

// countingConn is a net.Conn that counts the bytes written to it.
type countingConn struct {
	net.Conn
	written atomic.Int64
}

// Write writes p and counts what was written.
func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	return n, err
}

// start performs the first start, choosing a free port and retrying with
// another one if the port is taken before redis-server binds it.
func (s *Server) start(bin string) error {
	return s.startOn(s.cluster, func(port int) error { return s.launch(bin, port) })
}

// startOn runs launch on a free port (see freePort for cluster), and again
// on another one while the port turns out taken before the process binds
// it; on success the port is s's. It holds s.mu throughout.
func (s *Server) startOn(cluster bool, launch func(port int) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for range startAttempts {
		port, err := freePort(cluster)
		if err != nil {
			return err
		}
		err = launch(port)
		if err == nil {
			s.port = port
			return nil
		}
		errs = append(errs, err)
		if !errors.Is(err, errPortInUse) {
			break
		}
	}
	return errors.Join(errs...)
}

// args returns the redis-server command line for port.
func (s *Server) args(port int) []string {
	args := []string{
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", s.dir,
		"--protected-mode", "no",
		"--daemonize", "no",
		"--enable-debug-command", "local",
	}
	if s.cluster {
		args = append(args,
			"--cluster-enabled", "yes",
			"--cluster-config-file", filepath.Join(s.dir, "nodes.conf"),
		)
		args = append(args, s.clusterArgs...)
	}
	return args
}

// launch starts redis-server on port and waits until it answers. On
// failure the process is reaped and the error carries the log tail. The
// caller holds s.mu.
func (s *Server) launch(bin string, port int) error {
	return s.exec("redis-server", port, bin, s.args(port)...)
}

// exec starts bin with args, as the process (called what in errors) that
// will answer on port with its output in s's log, and waits until it
// answers. On failure the process is reaped and the error carries the log
// tail. The caller holds s.mu.
func (s *Server) exec(what string, port int, bin string, args ...string) error {
	addr := hostPort(port)
	logStart := fileSize(s.logPath)
	logf, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("redistest: %w", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = s.dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	p, err := startProcess(cmd)
	logf.Close() // the child holds its own copy
	if err != nil {
		return fmt.Errorf("redistest: starting %s on %s: %w", what, addr, err)
	}
	if err := waitReady(addr, p, readyTimeout); err != nil {
		_ = p.kill()
		log := tail(s.logPath, logStart)
		if strings.Contains(log, "Address already in use") {
			err = fmt.Errorf("%w: %w", errPortInUse, err)
		}
		return fmt.Errorf("redistest: %s on %s (pid %d): %w; log:%s", what, addr, p.pid(), err, log)
	}
	s.proc = p
	return nil
}

// waitReady polls addr until the server answers and reports p's pid as its
// own, p exits, or timeout passes.
func waitReady(addr string, p *process, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if p.exited() {
			return fmt.Errorf("exited before answering: %s", p.status())
		}
		err := listening(addr)
		if err == nil {
			err = probe(addr, p.pid())
		}
		if err == nil || errors.Is(err, errPortInUse) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer within %v: %w", timeout, err)
		}
		select {
		case <-p.done:
		case <-tick.C:
		}
	}
}

// listening reports whether addr accepts TCP connections. waitReady asks
// before it probes, because go-redis logs every dial that fails.
func listening(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, probeTimeout)
	if err != nil {
		return err
	}
	return conn.Close()
}

// probe checks that the server at addr answers PING and that it is the
// process with the given pid rather than some other process that got the
// port first.
func probe(addr string, pid int) error {
	c := adminClient(addr)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		return err
	}
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return err
	}
	if got, _ := infoField(info, "process_id"); got != strconv.Itoa(pid) {
		return fmt.Errorf("%w: %s is served by pid %s", errPortInUse, addr, got)
	}
	return nil
}

// adminClient returns a client for the harness's own commands to the
// server at addr (readiness probes, cluster setup): each dial, read and
// write is bounded by probeTimeout, nothing is retried, and a failed dial
// is reported at once. The caller closes it.
func adminClient(addr string) *redis.Client { return redis.NewClient(adminOptions(addr)) }

// adminOptions are the options of adminClient.
func adminOptions(addr string) *redis.Options {
	return &redis.Options{
		Addr:          addr,
		DialTimeout:   probeTimeout,
		ReadTimeout:   probeTimeout,
		WriteTimeout:  probeTimeout,
		DialerRetries: 1,
		MaxRetries:    -1,
		// Once as many dials have failed as the pool has connections,
		// go-redis starts a goroutine that redials every second until a
		// dial succeeds or it finds the client closed. With two, the one
		// dial a probe makes never starts it.
		PoolSize: 2,
	}
}

// infoField returns the value of field in an INFO-style "name:value" text.
func infoField(info, field string) (string, bool) {
	for line := range strings.Lines(info) {
		name, value, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ":")
		if ok && name == field {
			return value, true
		}
	}
	return "", false
}

// requireRedis returns the path of redis-server. When it is not on PATH it
// skips the test, or fails it when LOCKKIT_REQUIRE_REDIS is "1", so that CI
// cannot silently skip the tests that need a real server.
func requireRedis(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err == nil {
		return bin
	}
	msg := "redistest: redis-server not found on PATH; install Redis 7 or later " +
		"(e.g. `apt-get install redis-server` or `brew install redis`) to run this test"
	if os.Getenv(requireEnv) == "1" {
		t.Fatalf("%s (%s=1 makes this a failure)", msg, requireEnv)
	}
	t.Skipf("%s; set %s=1 to fail instead of skipping", msg, requireEnv)
	return ""
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
