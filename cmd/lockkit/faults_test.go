package main

import (
	"context"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestCommands_exit_1_when_the_server_stalls_or_is_down checks that show,
// ls and unlock, each bounded by --timeout, end with status 1 and the
// error on stderr against a server that stopped answering (a paused
// process) and against one that is gone: an operator's command never
// hangs, and a failure is not mistaken for a bad command line (2).
func TestCommands_exit_1_when_the_server_stalls_or_is_down(t *testing.T) {
	s := redistest.StartServer(t)
	f := newFixture(t, s.Client(t))
	commands := [][]string{
		{"show", f.name},
		{"ls"},
		{"unlock", "--force", "--yes", f.name},
	}
	check := func(state string) {
		t.Helper()
		for _, args := range commands {
			r := f.run(t, append([]string{"--timeout", "1s", "--prefix", f.prefix}, args...)...)
			if r.code != exitFail || !strings.Contains(r.stderr, "lockkit "+args[0]+":") || r.stdout != "" {
				t.Errorf("lockkit %q against a server that %s: status %d, stdout %q, stderr %q; want %d and the error on stderr",
					args, state, r.code, r.stdout, r.stderr, exitFail)
			}
		}
	}
	s.Stall(t, time.Minute)
	check("stalls")
	s.Kill(t)
	check("is down")
}

// TestUnlock_force_against_a_server_that_pauses_writes_ends_by_its_timeout:
// the server answers reads but holds writes (CLIENT PAUSE WRITE, as during
// a FAILOVER), so that unlock's inspection succeeds and its force is held
// up. The command fails with status 1 about --timeout later: the request
// it left behind, which the Client's Close waits for, ends at its first
// read timeout. Before, go-redis retried it three times, and the command
// took four times --timeout.
func TestUnlock_force_against_a_server_that_pauses_writes_ends_by_its_timeout(t *testing.T) {
	s := redistest.StartServer(t)
	f := newFixture(t, s.Client(t))
	redistest.MustLock(t, reentrant.New(f.lc, f.name))
	if err := s.Client(t).Do(f.ctx, "CLIENT", "PAUSE", time.Minute.Milliseconds(), "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Client(t).Do(context.Background(), "CLIENT", "UNPAUSE").Err() })
	const timeout = time.Second
	start := time.Now()
	r := f.run(t, "--timeout", timeout.String(), "--prefix", f.prefix, "unlock", "--force", "--yes", f.name)
	took := time.Since(start)
	if r.code != exitFail || !strings.Contains(r.stderr, "lockkit unlock:") {
		t.Errorf("unlock against a server that pauses writes: status %d, stderr %q; want %d and the error", r.code, r.stderr, exitFail)
	}
	// --timeout for the call, and at most one more for the request left
	// behind; four times it before.
	if took > 3*timeout {
		t.Errorf("unlock took %v with --timeout %v", took, timeout)
	}
}

// TestWatch_outlives_a_server_restart_and_ends_on_SIGTERM checks that
// watch runs "until interrupted", as doc.go says: a server killed and
// restarted under it does not end it, it subscribes again and goes on
// printing what happens to the lock, and SIGTERM ends it with status 0.
func TestWatch_outlives_a_server_restart_and_ends_on_SIGTERM(t *testing.T) {
	s := redistest.StartServer(t)
	f := newFixture(t, s.Client(t))
	ch := keys(f.prefix, f.name).Channel
	w := f.start(t, "-o", "json", "watch", "--prefix", f.prefix, f.name)
	if ev := nextEvent(t, w); ev.Event != "state" {
		t.Fatalf("watch began with %+v, want the state", ev)
	}
	s.Restart(t)
	// watch's pub/sub connection subscribes again to the new server.
	redistest.Eventually(t, 10*time.Second, "watch to subscribe again after the restart", func() bool {
		return numSub(t, f.rc, ch) == 1
	})
	m := reentrant.New(f.process(t), f.name)
	redistest.MustLock(t, m)
	ev := awaitEvents(t, w, "acquire")["acquire"]
	if ev.Token != m.Token() {
		t.Errorf("acquire after the restart: %+v, want token %d", ev, m.Token())
	}
	redistest.MustUnlock(t, m)
	// The release's wake-up comes through the new subscription.
	if ev := awaitEvents(t, w, "publish", "release")["publish"]; ev.Channel != ch {
		t.Errorf("publish event %+v, want one on %s", ev, ch)
	}
	w.stop(t, syscall.SIGTERM)
}

// TestWatch_interrupted_while_connecting_exits_0 checks that watch ends
// with status 0 when interrupted, as doc.go says, also before it printed
// anything: here its server accepts the connection and never answers, and
// SIGTERM comes while watch waits for it.
func TestWatch_interrupted_while_connecting_exits_0(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for c := range accepted {
			c.Close()
		}
	})
	host, port, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	w := cli{conn: []string{"-h", host, "-p", port}}.start(t, "watch", redistest.Unique(t))
	conn := redistest.Receive(t, accepted, redistest.Hang, "watch to connect")
	defer conn.Close()
	w.stop(t, syscall.SIGTERM)
}
