package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// cliTimeout bounds each run of the command.
const cliTimeout = 30 * time.Second

// cli runs the lockkit command against one Redis deployment.
type cli struct {
	conn []string // connection flags
	env  []string // more environment variables, KEY=VALUE
}

// cliFor returns the command connected as a user would connect to what
// rc talks to: by URL to a standalone server, by --cluster with one seed
// node's host and port to a Cluster.
func cliFor(t testing.TB, rc redis.UniversalClient) cli {
	switch c := rc.(type) {
	case *redis.Client:
		return cli{conn: []string{"-u", "redis://" + c.Options().Addr}}
	case *redis.ClusterClient:
		host, port, err := net.SplitHostPort(c.Options().Addrs[0])
		if err != nil {
			t.Fatal(err)
		}
		return cli{conn: []string{"--cluster", "-h", host, "-p", port}}
	}
	t.Fatalf("no command line for %T", rc)
	return cli{}
}

// command returns the process running lockkit with the connection flags
// and then args.
func (c cli) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], append(append([]string{}, c.conn...), args...)...)
	cmd.Env = append(os.Environ(), asLockkit+"=1",
		// A race-enabled binary otherwise pauses for a second on exit.
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd.Env = append(cmd.Env, c.env...)
	return cmd
}

// result is what one run of the command printed and its exit status.
type result struct {
	stdout, stderr string
	code           int
}

// run runs lockkit with args to its end.
func (c cli) run(t testing.TB, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := c.command(ctx, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("lockkit %q: %v", args, err)
	}
	return r
}

// ok runs lockkit with args and fails the test unless it exits with 0.
func (c cli) ok(t testing.TB, args ...string) string {
	t.Helper()
	r := c.run(t, args...)
	if r.code != 0 {
		t.Fatalf("lockkit %q: exit status %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// okJSON runs lockkit with args and -o json and decodes its output into v.
func (c cli) okJSON(t testing.TB, v any, args ...string) {
	t.Helper()
	out := c.ok(t, append([]string{"-o", "json"}, args...)...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("lockkit %q: output is not the JSON expected: %v\n%s", args, err, out)
	}
}

// running is a lockkit process that runs until stopped (watch).
type running struct {
	cmd   *exec.Cmd
	lines chan string      // stdout, line by line; closed at its end
	err   redistest.Buffer // stderr, readable while the process runs
	done  chan struct{}    // closed once the process was waited for
}

// start starts lockkit with args; the process is killed at the end of the
// test if it still runs.
func (c cli) start(t testing.TB, args ...string) *running {
	t.Helper()
	r := &running{cmd: c.command(context.Background(), args...), lines: make(chan string, 1000), done: make(chan struct{})}
	r.cmd.Stderr = &r.err
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(r.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
	})
	go func() {
		wg.Wait() // Wait closes stdout: read it all first
		_ = r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

// next returns the next line of output, failing the test if none comes
// within 10 s.
func (r *running) next(t testing.TB) string {
	t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			<-r.done
			t.Fatalf("lockkit ended (%v) before printing the line awaited; stderr: %s", r.cmd.ProcessState, r.err.String())
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatalf("lockkit printed no line within 10s; stderr: %s", r.err.String())
		return ""
	}
}

// interrupt sends SIGINT, as ctrl-C does, and fails the test unless the
// process then exits with status 0 within 10 s.
func (r *running) interrupt(t testing.TB) {
	t.Helper()
	r.stop(t, os.Interrupt)
}

// stop sends sig and fails the test unless the process then exits with
// status 0 within 10 s.
func (r *running) stop(t testing.TB, sig os.Signal) {
	t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, r.done, 10*time.Second, fmt.Sprintf("lockkit to exit after %v", sig))
	if code := r.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("lockkit exited with %d after %v; stderr: %s", code, sig, r.err.String())
	}
}
