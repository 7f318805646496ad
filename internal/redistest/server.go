package redistest

import (
	"errors"
	"fmt"
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

// readyTimeout bounds the wait for a freshly started redis-server to answer
// PING.
const readyTimeout = 10 * time.Second

// startAttempts is how many fresh ports a first start tries when another
// process takes the chosen port first.
const startAttempts = 5

// errPortInUse marks a start that failed because the port was taken.
var errPortInUse = errors.New("port already in use")

// Server is one redis-server process started by the harness on a free
// 127.0.0.1 port, with persistence disabled (--save "" --appendonly no)
// and its own temporary directory. It is killed in t.Cleanup of the test
// that started it.
type Server struct {
	dir     string
	logPath string
	cluster bool // run as a Redis Cluster node

	port int          // fixed by the first start, reused by Restart
	pid  atomic.Int64 // pid of the most recently started process

	mu     sync.Mutex
	proc   *process // running process, nil when stopped
	closed bool     // set by cleanup; no more starts
}

// StartServer starts a standalone redis-server and waits until it answers
// PING. It calls [Require] first.
func StartServer(t testing.TB) *Server {
	t.Helper()
	return StartMasters(t, 1)[0]
}

// StartMasters starts n independent standalone redis-servers concurrently
// and waits until each answers PING. It calls [Require] first.
func StartMasters(t testing.TB, n int) []*Server {
	t.Helper()
	Require(t)
	return startServers(t, n, false)
}

// startServers creates n servers (cluster nodes when cluster is set), all
// stopped in t.Cleanup, and starts them concurrently.
func startServers(t testing.TB, n int, cluster bool) []*Server {
	t.Helper()
	servers := make([]*Server, n)
	for i := range servers {
		servers[i] = newServer(t, cluster)
	}
	var g errgroup.Group
	for _, s := range servers {
		g.Go(s.start)
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

// PID returns the process id of the most recently started redis-server
// process for this server, even if it has since been stopped.
func (s *Server) PID() int { return int(s.pid.Load()) }

// Client returns a new go-redis client for the server with default
// options. It is closed in t.Cleanup.
func (s *Server) Client(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Stop stops the server gracefully with SIGTERM and waits for the process
// to exit. Stopping a stopped server does nothing.
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
// and waits until it answers PING. A running server is killed first and
// fully reaped before the new process starts. A cluster node keeps its
// cluster configuration file and so rejoins its cluster with its old
// identity and slots, but without data.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
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
	if err := s.launch(s.port); err != nil {
		t.Fatal(err)
	}
}

// start performs the first start, choosing a free port and retrying with
// another one if the port is taken before redis-server binds it.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for range startAttempts {
		port, err := freePort(s.cluster)
		if err != nil {
			return err
		}
		err = s.launch(port)
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
			"--cluster-node-timeout", "2000",
		)
	}
	return args
}

// launch starts redis-server on port and waits until it answers PING. On
// failure the process is reaped and the error carries the log tail. The
// caller holds s.mu.
func (s *Server) launch(port int) error {
	bin, _, err := binaries()
	if err != nil {
		return err
	}
	addr := hostPort(port)
	logStart := fileSize(s.logPath)
	logf, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("redistest: %w", err)
	}
	cmd := exec.Command(bin, s.args(port)...)
	cmd.Dir = s.dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	p, err := startProcess(cmd)
	logf.Close() // the child holds its own copy
	if err != nil {
		return fmt.Errorf("redistest: starting redis-server on %s: %w", addr, err)
	}
	s.pid.Store(int64(p.pid()))
	if err := waitReady(addr, p, readyTimeout); err != nil {
		_ = p.kill()
		log := tail(s.logPath, logStart)
		if strings.Contains(log, "Address already in use") {
			err = fmt.Errorf("%w: %w", errPortInUse, err)
		}
		return fmt.Errorf("redistest: redis-server on %s (pid %d): %w; log:%s", addr, p.pid(), err, log)
	}
	s.proc = p
	return nil
}

// waitReady polls addr until the server answers PING and reports p's pid
// as its own, p exits, or timeout passes.
func waitReady(addr string, p *process, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if p.exited() {
			return fmt.Errorf("exited before answering PING: %s", p.status())
		}
		err := probe(addr, p.pid())
		if err == nil || errors.Is(err, errPortInUse) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no PING reply within %v: %w", timeout, err)
		}
		select {
		case <-p.done:
		case <-tick.C:
		}
	}
}

// probe checks that the server at addr answers PING and that it is the
// process with the given pid rather than some other process that got the
// port first.
func probe(addr string, pid int) error {
	c, err := dialRESP(addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	if pong, err := c.do("PING"); err != nil {
		return err
	} else if pong != "PONG" {
		return fmt.Errorf("PING answered %q", pong)
	}
	info, err := c.do("INFO", "server")
	if err != nil {
		return err
	}
	if got, _ := infoField(info, "process_id"); got != strconv.Itoa(pid) {
		return fmt.Errorf("%w: %s is served by pid %s", errPortInUse, addr, got)
	}
	return nil
}
