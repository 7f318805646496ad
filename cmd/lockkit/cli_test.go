package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/nodes"
	"github.com/lockkit/lockkit/internal/redistest"
)

// cliTimeout bounds each run of the command.
const cliTimeout = 30 * time.Second

// cli runs the lockkit command against one Redis deployment.
type cli struct {
	conn []string // connection flags
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
	lines chan string // stdout, line by line; closed at its end
	err   bytes.Buffer
	done  chan struct{} // closed once the process was waited for
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
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, r.done, 10*time.Second, "lockkit to exit after SIGINT")
	if code := r.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("lockkit exited with %d after SIGINT; stderr: %s", code, r.err.String())
	}
}

// keys returns the keys of lock name under prefix, as the library names
// them.
func keys(prefix, name string) core.Keys { return core.NewKeys(prefix, name) }

// reentrantWaiting reports whether a process waits for reentrant lock
// name, subscribed: on the lock's channel (a Cluster client's waiters), or
// on its own channel, registered in the lock's processes.
func reentrantWaiting(t testing.TB, rc redis.UniversalClient, prefix, name string) bool {
	t.Helper()
	k := keys(prefix, name)
	if numSub(t, rc, k.Channel) == 1 {
		return true
	}
	ids, err := rc.ZRange(redistest.Ctx(t, 5*time.Second), k.Procs, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if numSub(t, rc, k.Channel+":"+id) == 1 {
			return true
		}
	}
	return false
}

// writersWaiting reports whether a writer waits for read-write lock name,
// subscribed: on the writers' channel (a Cluster client's), or on its
// process's own, registered in the lock's writer processes.
func writersWaiting(t testing.TB, rc redis.UniversalClient, prefix, name string) bool {
	t.Helper()
	wch := keys(prefix, name).Sub("wch")
	if numSub(t, rc, wch) == 1 {
		return true
	}
	ids, err := rc.ZRange(redistest.Ctx(t, 5*time.Second), keys(prefix, name).Sub("wprocs"), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if numSub(t, rc, wch+":"+id) == 1 {
			return true
		}
	}
	return false
}

// numSub returns how many connections are subscribed to channel, on every
// node of a Cluster.
func numSub(t testing.TB, rc redis.UniversalClient, channel string) int64 {
	t.Helper()
	ctx := redistest.Ctx(t, 5*time.Second)
	var (
		mu sync.Mutex
		n  int64
	)
	count := func(ctx context.Context, c redis.Cmdable) error {
		m, err := c.PubSubNumSub(ctx, channel).Result()
		mu.Lock()
		n += m[channel]
		mu.Unlock()
		return err
	}
	if err := nodes.All(ctx, rc, count); err != nil {
		t.Fatal(err)
	}
	return n
}

// names returns n unique lock names; on a Cluster their keys live on n
// distinct masters (n ≤ 3).
func names(t testing.TB, rc redis.UniversalClient, n int) []string {
	t.Helper()
	if cc, ok := rc.(*redis.ClusterClient); ok {
		return redistest.NamesOnDistinctMasters(t, cc, n)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = redistest.Unique(t)
	}
	return out
}

// prefixed returns a lockkit Client of rc whose locks use a prefix unique
// to the test, and the prefix.
func prefixed(t testing.TB, rc redis.UniversalClient) (*lockkit.Client, string) {
	t.Helper()
	prefix := "cli-" + redistest.Unique(t)
	return redistest.Lockkit(t, rc, lockkit.WithPrefix(prefix)), prefix
}

// backends are the deployments the command is tested on.
var backends = []redistest.Backend{redistest.ServerBackend, redistest.ClusterBackend}

// waitInBackground runs lock in a goroutine, bounded by a 30 s ctx that
// the test's end cancels, and returns a channel receiving its error.
func waitInBackground(t testing.TB, lock func(context.Context) error) <-chan error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	done := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done <- lock(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-finished
	})
	return done
}

// matches reports whether s matches the regular expression re.
func matches(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
