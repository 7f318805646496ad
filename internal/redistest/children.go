package redistest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
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

	"github.com/redis/go-redis/v9"
)

// This file holds child processes: the test's side ([Child]), the child's
// side ([ChildPrintf], [ChildLines], [ChildFatalf]), how a child reaches
// the test's Redis ([ClientSpec]), and the counting children that check
// mutual exclusion across processes ([CountingChild], [CountRun]).

const (
	// childExitGrace bounds how long WaitLine waits for the exit status of
	// a child whose stdout has already closed.
	childExitGrace = 5 * time.Second
	// childStepTimeout bounds each quick step of a counting child that the
	// test waits for: getting ready, and exiting once it is done.
	childStepTimeout = 30 * time.Second
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

// ChildPrintf writes one line, formatted as by fmt.Sprintf, to the child's
// stdout, where [Child.WaitLine] reads it. A trailing newline is added if
// missing. Each line is a single write to os.Stdout, which *os.File
// serialises, so lines from concurrent goroutines never interleave.
func ChildPrintf(format string, a ...any) {
	line := fmt.Sprintf(format, a...)
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	_, _ = io.WriteString(os.Stdout, line)
}

// ChildFatalf writes a message, formatted as by fmt.Sprintf, to the
// child's stderr and exits the child with status 1, which makes
// [Child.Wait] fail and show the message.
func ChildFatalf(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	_, _ = io.WriteString(os.Stderr, msg)
	os.Exit(1)
}

// ChildAtoi returns s, an argument or input of a child process, as an
// int; when s is not one, it ends the child as [ChildFatalf] does, naming
// what s is.
func ChildAtoi(s, what string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		ChildFatalf("%s: %v", what, err)
	}
	return n
}

// ChildLines returns a channel of the lines the test sends with
// [Child.Send], read from the child's stdin without their newline. The
// channel is closed at end of input. Every call returns the same channel,
// as there is one stdin per process.
func ChildLines() <-chan string { return stdinLines() }

// stdinLines starts, on first use, the one goroutine that reads the
// process's stdin, and returns its channel.
var stdinLines = sync.OnceValue(func() <-chan string {
	ch := make(chan string, 64)
	go readLines(os.Stdin, ch)
	return ch
})

// readLines sends each line of r, without its newline, on ch and closes ch
// at end of input or on a read error.
func readLines(r io.Reader, ch chan<- string) {
	defer close(ch)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			ch <- strings.TrimSuffix(line, "\n")
		}
		if err != nil {
			return
		}
	}
}

// ClientSpec describes the Redis that c talks to as a string that a child
// process can take as an argument: "standalone=ADDR" for a [redis.Client],
// "cluster=ADDR,ADDR,..." for a [redis.ClusterClient]. [SpecClient] opens a
// client from it. It panics on any other kind of client.
func ClientSpec(c redis.UniversalClient) string {
	switch c := c.(type) {
	case *redis.Client:
		return "standalone=" + c.Options().Addr
	case *redis.ClusterClient:
		return "cluster=" + strings.Join(c.Options().Addrs, ",")
	}
	panic(fmt.Sprintf("redistest: ClientSpec of unsupported client %T", c))
}

// SpecClient returns a new client of the Redis that spec, made by
// [ClientSpec], describes. The caller closes it.
func SpecClient(spec string) redis.UniversalClient {
	kind, addrs, _ := strings.Cut(spec, "=")
	if kind == "cluster" {
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addrs, ",")})
	}
	return redis.NewClient(&redis.Options{Addr: addrs})
}

// CountingChild returns the entry point of a child process, to give [Main]
// in [Children], that puts a lock's mutual exclusion to the test across
// processes; [CountRun] starts and drives such children.
//
// The child connects to the servers the test names and prints "ready".
// Once it reads "go" it runs goroutines that each take a lock of their own
// from newLock (given a client of every server) and, round after round,
// lock it, read a counter on the first server, write it back one higher and
// unlock. Two holders at once would lose an increment. With fencing on,
// each holder also swaps its fencing token into a key beside the counter
// and fails if the token it replaces is not smaller. The child prints
// "done" when every goroutine has finished, and exits with status 1 at the
// first error.
func CountingChild(newLock func(clients []redis.UniversalClient, name string) TokenLocker) func(args []string) {
	return func(args []string) {
		run, err := parseCountArgs(args)
		if err != nil {
			ChildFatalf("counting child: %v", err)
		}
		clients := make([]redis.UniversalClient, len(run.Addrs))
		for i, addr := range run.Addrs {
			clients[i] = redis.NewClient(&redis.Options{Addr: addr})
			defer clients[i].Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), run.Timeout)
		defer cancel()
		ChildPrintf("ready")
		if line := <-ChildLines(); line != "go" {
			ChildFatalf("got %q, want go", line)
		}
		var wg sync.WaitGroup
		for range run.Goroutines {
			m := newLock(clients, run.Name)
			wg.Go(func() {
				for i := range run.Rounds {
					if err := m.Lock(ctx); err != nil {
						ChildFatalf("round %d: Lock: %v", i, err)
					}
					if err := run.increment(ctx, clients[0], m); err != nil {
						ChildFatalf("round %d: %v", i, err)
					}
					if err := m.Unlock(ctx); err != nil {
						ChildFatalf("round %d: Unlock: %v", i, err)
					}
				}
			})
		}
		wg.Wait()
		ChildPrintf("done")
	}
}

// CountRun is a run of [CountingChild] processes against one lock.
type CountRun struct {
	Child      string        // the name the child has in the package's Children
	Addrs      []string      // the servers; the counter lives on the first
	Name       string        // the lock's name
	Procs      int           // child processes
	Goroutines int           // goroutines per process, each its own owner
	Rounds     int           // holds each goroutine takes
	Fenced     bool          // also check that fencing tokens grow
	Timeout    time.Duration // bounds each child's work, and the wait for it
}

// Run starts the children, lets them all go at once, waits for every one
// to finish successfully, and fails the test unless the counter ends at
// Procs × Goroutines × Rounds: a lost increment means that two holders
// overlapped.
func (r CountRun) Run(t testing.TB) {
	t.Helper()
	children := make([]*Child, r.Procs)
	for i := range children {
		children[i] = StartChild(t, r.Child, r.args()...)
	}
	for _, ch := range children {
		ch.WaitLine(t, "ready", childStepTimeout)
	}
	for _, ch := range children {
		ch.Send(t, "go")
	}
	for _, ch := range children {
		ch.WaitLine(t, "done", r.Timeout)
		ch.Wait(t, childStepTimeout)
	}
	c := redis.NewClient(&redis.Options{Addr: r.Addrs[0]})
	defer c.Close()
	got, err := c.Get(Ctx(t, queryTimeout), r.countKey()).Int()
	if want := r.Procs * r.Goroutines * r.Rounds; err != nil || got != want {
		t.Fatalf("counter = %d, %v; want %d (lost updates mean two holders overlapped)", got, err, want)
	}
}

// countKey and tokenKey are the counter and the latest fencing token. They
// do not carry the lock's hash tag, so they never count as keys the lock
// left behind.
func (r CountRun) countKey() string { return "count:" + r.Name }
func (r CountRun) tokenKey() string { return "token:" + r.Name }

// increment adds one to the counter with a separate read and write and,
// when fenced, swaps m's token in, checking that it grew.
func (r CountRun) increment(ctx context.Context, c redis.UniversalClient, m TokenLocker) error {
	n, err := c.Get(ctx, r.countKey()).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if r.Fenced {
		old, err := c.SetArgs(ctx, r.tokenKey(), m.Token(), redis.SetArgs{Get: true}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		if prev, _ := strconv.ParseInt(old, 10, 64); prev >= m.Token() { // 0 for the first hold
			return fmt.Errorf("token %d after token %d", m.Token(), prev)
		}
	}
	return c.Set(ctx, r.countKey(), n+1, 0).Err()
}

// args encodes the run for the child: name, goroutines, rounds, fenced,
// timeout, then the addresses.
func (r CountRun) args() []string {
	return append([]string{r.Name, strconv.Itoa(r.Goroutines), strconv.Itoa(r.Rounds),
		strconv.FormatBool(r.Fenced), r.Timeout.String()}, r.Addrs...)
}

// parseCountArgs decodes what args encoded.
func parseCountArgs(args []string) (CountRun, error) {
	if len(args) < 6 {
		return CountRun{}, errors.New("want name, goroutines, rounds, fenced, timeout and addresses")
	}
	r := CountRun{Name: args[0], Addrs: args[5:]}
	var errs [4]error
	r.Goroutines, errs[0] = strconv.Atoi(args[1])
	r.Rounds, errs[1] = strconv.Atoi(args[2])
	r.Fenced, errs[2] = strconv.ParseBool(args[3])
	r.Timeout, errs[3] = time.ParseDuration(args[4])
	return r, errors.Join(errs[:]...)
}
