package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// server is one redis-server process that the benchmark started on a free
// 127.0.0.1 port, with persistence off and its own temporary directory.
// Only this process is ever signalled, by its pid.
type server struct {
	addr string
	dir  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has been reaped
}

// startServer starts redis-server from PATH on a free loopback port and
// waits until it answers PING. It tries a few ports in case another
// process takes the chosen one first.
func startServer() (*server, error) {
	bin, err := lookRedis()
	if err != nil {
		return nil, err
	}
	var lastErr error
	for range 5 {
		s, err := launch(bin)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// lookRedis finds redis-server on PATH.
func lookRedis() (string, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", fmt.Errorf("redis-server is not on PATH (apt-get install redis-server): %w", err)
	}
	return bin, nil
}

// launch starts one redis-server on a port that was free a moment ago.
func launch(bin string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "lockkit-bench-redis-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin,
		"--bind", "127.0.0.1", "--port", strconv.Itoa(port),
		"--save", "", "--appendonly", "no", "--dir", dir,
		"--logfile", dir+"/redis.log", "--daemonize", "no")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &server{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	if err := s.waitReady(10 * time.Second); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls PING until the server answers, the process exits or
// the timeout passes.
func (s *server) waitReady(timeout time.Duration) error {
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("redis-server on %s exited at start: %s", s.addr, s.logTail())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server on %s did not answer within %v: %w", s.addr, timeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop sends SIGTERM to the server's pid, SIGKILL if it has not exited
// after 5 s, and removes its directory.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	os.RemoveAll(s.dir)
}

// logTail returns the last lines of the server's log, for errors.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.dir + "/redis.log")
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, "\n")
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// cpuSeconds returns used_cpu_sys + used_cpu_user from INFO CPU: the CPU
// time the server process has used since it started.
func cpuSeconds(ctx context.Context, c *redis.Client) (float64, error) {
	info, err := c.Info(ctx, "cpu").Result()
	if err != nil {
		return 0, err
	}
	var total float64
	var seen int
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		if !ok || (k != "used_cpu_sys" && k != "used_cpu_user") {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("INFO CPU %s: %w", k, err)
		}
		total += f
		seen++
	}
	if seen != 2 {
		return 0, errors.New("INFO CPU lacks used_cpu_sys or used_cpu_user")
	}
	return total, nil
}
