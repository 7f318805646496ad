package main

import (
	"bufio"
	"context"
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

	"github.com/redis/go-redis/v9"
)

// startDelay is how far ahead of "now" the parent sets the common start
// time, so that every child has read it before it comes.
const startDelay = 50 * time.Millisecond

// cellResult is what one library did in one workload, merged over its
// processes.
type cellResult struct {
	lib      string
	work     workload
	duration time.Duration
	// acquisitions per goroutine, over every process
	acquisitions []int
	waits        []float64 // seconds
	commands     int64
	badBytes     int64
	errors       int
	firstError   string
	redisCPU     float64 // seconds of server CPU during the run
}

// runCell runs lib on w for d against the server at addr: it starts one
// child process per process of the workload, waits until every one is
// warmed up, gives them one start time, and merges their reports. admin
// reads the server's CPU time before the start and after the last report.
func runCell(exe string, addr string, admin *redis.Client, lib library, w workload, d time.Duration, prefix string) (*cellResult, error) {
	ctx := context.Background()
	children := make([]*child, 0, w.procs)
	defer func() {
		for _, c := range children {
			c.stop()
		}
	}()
	for p := range w.procs {
		spec := childSpec{Addr: addr, Library: lib.name, Prefix: prefix, Proc: p,
			Goroutines: w.goroutines, Keys: w.keys, Hold: w.hold, Duration: d}
		c, err := startChild(exe, spec)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
	}
	for _, c := range children {
		if err := c.expectReady(); err != nil {
			return nil, err
		}
	}
	cpu0, err := cpuSeconds(ctx, admin)
	if err != nil {
		return nil, err
	}
	start := time.Now().Add(startDelay)
	for _, c := range children {
		if _, err := fmt.Fprintf(c.stdin, "%s %d\n", goWord, start.UnixNano()); err != nil {
			return nil, fmt.Errorf("starting child %d: %w", c.cmd.Process.Pid, err)
		}
	}
	res := &cellResult{lib: lib.name, work: w, duration: d}
	for _, c := range children {
		r, err := c.result(d + time.Minute)
		if err != nil {
			return nil, err
		}
		res.acquisitions = append(res.acquisitions, r.Acquisitions...)
		res.waits = append(res.waits, r.Waits...)
		res.commands += r.Commands
		res.badBytes += r.BadBytes
		res.errors += r.Errors
		if res.firstError == "" {
			res.firstError = r.FirstError
		}
	}
	cpu1, err := cpuSeconds(ctx, admin)
	if err != nil {
		return nil, err
	}
	res.redisCPU = cpu1 - cpu0
	return res, nil
}

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
