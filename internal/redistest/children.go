package redistest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// This file holds the test's side of a child process ([Child]); the
// child's own side is in childside.go.

const (
	// childExitGrace bounds how long WaitLine waits for the exit status of
	// a child whose stdout has already closed.
	childExitGrace = 5 * time.Second
	// recentLines is how many of the latest stdout lines a failure shows.
	recentLines = 20
)

// Child is a child process running one of the [Children] given to [Main]:
// the test binary re-executed with -test.run=^$ and environment variables
// naming the child and its arguments. The test reads its stdout lines with
// [Child.WaitLine] and writes to its stdin with [Child.Send].
type Child struct {
	name       string
	proc       *process
	stdin      io.WriteCloser
	stdout     *os.File // read end of the child's stdout pipe
	stderrPath string
	readDone   chan struct{} // closed when the stdout reader returns

	mu     sync.Mutex
	lines  []string      // every stdout line received so far
	next   int           // index of the first line WaitLine has not consumed
	eof    bool          // stdout reached end of file
	notify chan struct{} // closed and replaced whenever lines or eof change

	sendMu sync.Mutex // serialises writes to stdin
}

// StartChild starts the child that the package's TestMain gives [Main] as
// name, with args. The child is killed with SIGKILL in t.Cleanup if it is
// still running. A name that Main was not given makes the child exit with
// status 2, which the first [Child.WaitLine] reports.
func StartChild(t testing.TB, name string, args ...string) *Child {
	t.Helper()
	if args == nil {
		args = []string{}
	}
	encoded, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("redistest: encoding child arguments: %v", err)
	}
	stderrPath := filepath.Join(t.TempDir(), "stderr")
	stderr, err := os.Create(stderrPath)
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	defer stderr.Close() // the child holds its own copy
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	defer w.Close() // the child holds its own copy

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		envChild+"="+name,
		envChildArgs+"="+string(encoded),
		// A race-enabled binary otherwise pauses for a second on exit.
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"),
	)
	cmd.Stdout = w
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		r.Close()
		t.Fatalf("redistest: %v", err)
	}
	p, err := startProcess(cmd)
	if err != nil {
		r.Close()
		stdin.Close()
		t.Fatalf("redistest: starting child %q: %v", name, err)
	}
	c := &Child{
		name:       name,
		proc:       p,
		stdin:      stdin,
		stdout:     r,
		stderrPath: stderrPath,
		readDone:   make(chan struct{}),
		notify:     make(chan struct{}),
	}
	go c.read()
	t.Cleanup(func() {
		if err := p.kill(); err != nil {
			t.Errorf("redistest: cleanup of child %q: %v", name, err)
		}
		// Closing the read end ends the reader even if a grandchild
		// still holds the write end.
		r.Close()
		<-c.readDone
	})
	return c
}

// WaitLine returns the next line from the child's stdout that starts with
// prefix, consuming it and every line before it; the skipped lines appear
// in failure messages. It fails the test if no such line arrives within
// timeout or the child's stdout ends first, showing the child's exit
// status, recent output and stderr.
func (c *Child) WaitLine(t testing.TB, prefix string, timeout time.Duration) string {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		c.mu.Lock()
		for c.next < len(c.lines) {
			line := c.lines[c.next]
			c.next++
			if strings.HasPrefix(line, prefix) {
				c.mu.Unlock()
				return line
			}
		}
		eof, notify := c.eof, c.notify
		ranTests := len(c.lines) > 0 && c.lines[len(c.lines)-1] == "PASS"
		c.mu.Unlock()
		if eof {
			status := "still running with stdout closed"
			if c.proc.wait(childExitGrace) == nil {
				status = "exited: " + c.proc.status()
			}
			if ranTests {
				status += " after running the package's tests instead (does its TestMain call redistest.Main?)"
			}
			t.Fatalf("redistest: child %q (pid %d) %s before printing a line starting with %q%s",
				c.name, c.proc.pid(), status, prefix, c.report())
		}
		select {
		case <-notify:
		case <-timer.C:
			t.Fatalf("redistest: child %q (pid %d) printed no line starting with %q within %v%s",
				c.name, c.proc.pid(), prefix, timeout, c.report())
		}
	}
}

// WaitInt waits for the next line "prefix N" from the child's stdout, as
// [Child.WaitLine] does, and returns the number N. It fails the test if
// what follows prefix is not an integer.
func (c *Child) WaitInt(t testing.TB, prefix string, timeout time.Duration) int64 {
	t.Helper()
	line := c.WaitLine(t, prefix, timeout)
	n, err := strconv.ParseInt(strings.TrimPrefix(line, prefix), 10, 64)
	if err != nil {
		t.Fatalf("redistest: child %q: bad line %q: %v", c.name, line, err)
	}
	return n
}

// Send writes line and a newline to the child's stdin, where the child
// receives it from [ChildLines]. It blocks while the pipe is full, so the
// child must read what it is sent.
func (c *Child) Send(t testing.TB, line string) {
	t.Helper()
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		t.Fatalf("redistest: sending %q to child %q (pid %d): %v%s", line, c.name, c.proc.pid(), err, c.report())
	}
}

// CloseStdin closes the child's stdin, which closes the channel returned by
// [ChildLines] in the child.
func (c *Child) CloseStdin(t testing.TB) {
	t.Helper()
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if err := c.stdin.Close(); err != nil && !c.proc.exited() {
		t.Fatalf("redistest: closing stdin of child %q (pid %d): %v", c.name, c.proc.pid(), err)
	}
}

// Kill kills the child with SIGKILL and waits for it to exit. Killing a
// child that has already exited does nothing.
func (c *Child) Kill(t testing.TB) {
	t.Helper()
	if err := c.proc.kill(); err != nil {
		t.Fatalf("redistest: killing child %q: %v", c.name, err)
	}
}

// Wait waits up to timeout for the child to exit and fails the test, with
// the child's stderr, if it does not exit in time or exits with a status
// other than 0.
func (c *Child) Wait(t testing.TB, timeout time.Duration) {
	t.Helper()
	if err := c.proc.wait(timeout); err != nil {
		t.Fatalf("redistest: child %q: %v%s", c.name, err, c.report())
	}
	if c.proc.err != nil {
		t.Fatalf("redistest: child %q (pid %d) failed: %s%s", c.name, c.proc.pid(), c.proc.status(), c.report())
	}
}

// read records the child's stdout line by line until end of file.
func (c *Child) read() {
	defer close(c.readDone)
	br := bufio.NewReader(c.stdout)
	for {
		line, err := br.ReadString('\n')
		c.mu.Lock()
		if line != "" {
			c.lines = append(c.lines, strings.TrimSuffix(line, "\n"))
		}
		if err != nil {
			c.eof = true
		}
		close(c.notify)
		c.notify = make(chan struct{})
		c.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// report describes the child's recent stdout and its stderr for a failure
// message.
func (c *Child) report() string {
	c.mu.Lock()
	recent := c.lines[max(0, len(c.lines)-recentLines):]
	out := "(none)"
	if len(recent) > 0 {
		out = "\n\t" + strings.Join(recent, "\n\t")
	}
	c.mu.Unlock()
	return fmt.Sprintf("\nrecent stdout:%s\nstderr:%s", out, tail(c.stderrPath, 0))
}
