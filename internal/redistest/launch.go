package redistest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// startAttempts is how many fresh ports a first start tries when another
// process takes the chosen port first.
const startAttempts = 5

// errPortInUse marks a start that failed because the port was taken.
var errPortInUse = errors.New("port already in use")

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
			s.port, s.bus = port, cluster
			return nil
		}
		releasePort(port, cluster)
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
	if s.persist != nil {
		args = append(args, s.persist.args()...)
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

// requireEnv names the environment variable that turns a missing
// redis-server from a skipped test into a failed one when it is "1".
const requireEnv = "LOCKKIT_REQUIRE_REDIS"

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
