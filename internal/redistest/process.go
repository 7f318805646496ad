package redistest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// This file holds the operating-system plumbing under servers and
// children: a started process and its reaper, free loopback ports, and the
// tail of a log for failure messages.

// stopTimeout bounds every wait for a process to exit after it was
// signalled. It is generous: exceeding it means something is badly wrong.
const stopTimeout = 10 * time.Second

// process is one operating-system process started by the harness, with the
// goroutine that reaps it. It is only ever signalled through its
// os.Process, by pid, and never after it has been reaped.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once cmd.Wait has returned
	err  error         // result of cmd.Wait; read only after done is closed
}

// startProcess starts cmd and a goroutine that waits for it, so that the
// process never lingers as a zombie and its exit is observable on done.
// On Linux the process is killed if the test binary dies without running
// its cleanups (see sysProcAttr).
func startProcess(cmd *exec.Cmd) (*process, error) {
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// pid returns the operating-system process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has exited and been reaped.
func (p *process) exited() bool { return Closed(p.done) }

// signal sends sig to the process unless it has already been reaped.
// os.Process signals through a pidfd where the kernel supports it, so a
// reaped process's recycled pid is never hit.
func (p *process) signal(sig os.Signal) {
	if !p.exited() {
		_ = p.cmd.Process.Signal(sig)
	}
}

// wait waits up to timeout for the process to exit.
func (p *process) wait(timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.done:
		return nil
	case <-timer.C:
		return fmt.Errorf("process %d (%s) did not exit within %v", p.pid(), p.cmd.Path, timeout)
	}
}

// kill sends SIGKILL and waits for the process to be reaped.
func (p *process) kill() error {
	p.signal(os.Kill)
	return p.wait(stopTimeout)
}

// status describes how the process ended; it must be called after done is
// closed.
func (p *process) status() string {
	if p.err == nil {
		return "exit status 0"
	}
	return p.err.Error()
}

// clusterBusOffset is the distance Redis Cluster puts between a node's
// client port and its cluster bus port.
const clusterBusOffset = 10000

// freePort returns a loopback TCP port that was free a moment ago and that
// no test process claims, claimed now for this one (see claim; releasePort
// gives it up). With bus set, port+10000 (the cluster bus port) was free
// as well, and is claimed too. A process that is not a test's can still
// take the port before redis-server binds it; callers retry with a new
// port when that happens.
func freePort(bus bool) (int, error) {
	var lastErr error
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("redistest: finding a free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if bus {
			if port+clusterBusOffset > 65535 {
				l.Close()
				continue
			}
			b, err := net.Listen("tcp", hostPort(port+clusterBusOffset))
			if err != nil {
				lastErr = err
				l.Close()
				continue
			}
			b.Close()
		}
		l.Close()
		ok, err := claimPort(port, bus)
		if err != nil {
			return 0, fmt.Errorf("redistest: claiming a port: %w", err)
		}
		if ok {
			return port, nil
		}
	}
	return 0, errors.Join(errors.New("redistest: no free port pair for a cluster node"), lastErr)
}

// hostPort returns "127.0.0.1:port".
func hostPort(port int) string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// tailBytes caps how much of a log file goes into a failure message.
const tailBytes = 4096

// fileSize returns the size of the file at path, or 0 if it does not exist.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// tail returns up to the last tailBytes bytes written to the file at path
// after offset from, trimmed and indented for a failure message.
func tail(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	if size := fileSize(path); size-from > tailBytes {
		from = size - tailBytes
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return "(log unreadable: " + err.Error() + ")"
	}
	b, err := io.ReadAll(io.LimitReader(f, tailBytes))
	if err != nil {
		return "(log unreadable: " + err.Error() + ")"
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(empty)"
	}
	return "\n\t" + strings.ReplaceAll(s, "\n", "\n\t")
}
