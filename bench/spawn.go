package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// child is one child process of a cell.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string // the child's stdout, line by line; closed at EOF
	done  chan struct{}
}

// startChild re-executes exe with childFlag and spec. The child dies with
// the parent (Pdeathsig) and writes its errors to the parent's stderr.
func startChild(exe string, spec childSpec) (*child, error) {
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, childFlag, string(js))
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, stdin: stdin, lines: make(chan string, 4), done: make(chan struct{})}
	var reading sync.WaitGroup
	reading.Go(func() {
		defer close(c.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	})
	go func() {
		reading.Wait() // Wait closes stdout: read it all first
		_ = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// expectReady waits for the child's ready line.
func (c *child) expectReady() error {
	line, err := c.next(time.Minute)
	if err != nil {
		return err
	}
	if line != readyLine {
		return fmt.Errorf("child %d said %q instead of %q", c.cmd.Process.Pid, line, readyLine)
	}
	return nil
}

// result waits for the child's report.
func (c *child) result(timeout time.Duration) (*childResult, error) {
	line, err := c.next(timeout)
	if err != nil {
		return nil, err
	}
	var r childResult
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		return nil, fmt.Errorf("child %d: bad report: %w", c.cmd.Process.Pid, err)
	}
	return &r, nil
}

// next returns the child's next line of output.
func (c *child) next(timeout time.Duration) (string, error) {
	select {
	case line, ok := <-c.lines:
		if !ok {
			return "", errors.New("child " + strconv.Itoa(c.cmd.Process.Pid) + " exited early")
		}
		return line, nil
	case <-time.After(timeout):
		return "", fmt.Errorf("child %d: no answer within %v", c.cmd.Process.Pid, timeout)
	}
}

// stop closes the child's stdin and waits for it to exit, killing it by
// pid if it has not exited within 10 s.
func (c *child) stop() {
	_ = c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}
