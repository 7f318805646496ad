package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { Main(m) }

func init() {
	// echo answers every stdin line with "echo <args> <line>" until it
	// reads "quit" or its stdin closes.
	RegisterChild("echo", func(args []string) {
		ChildPrintf("ready")
		for line := range ChildLines() {
			if line == "quit" {
				ChildPrintf("bye")
				return
			}
			ChildPrintf("echo %s %s", strings.Join(args, ","), line)
		}
		ChildPrintf("eof")
	})
	// block prints "ready" and then waits for input that never comes.
	RegisterChild("block", func([]string) {
		ChildPrintf("noise")
		ChildPrintf("ready")
		for range ChildLines() {
		}
	})
	RegisterChild("panic", func([]string) {
		panic("boom")
	})
}

const waitTimeout = 10 * time.Second

func TestServerKillRestart(t *testing.T) {
	ctx := context.Background()
	s := StartServer(t)
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") {
		t.Fatalf("Addr() = %q", s.Addr())
	}
	c := s.Client(t)
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	addr, pid := s.Addr(), s.PID()
	if pid <= 0 {
		t.Fatalf("PID() = %d", pid)
	}

	s.Kill(t)
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("process %d still exists after Kill (kill -0: %v)", pid, err)
	}
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Fatal("a killed server still accepts connections")
	}
	s.Kill(t) // no-op on a stopped server

	s.Restart(t)
	if s.Addr() != addr {
		t.Fatalf("Restart moved the server from %s to %s", addr, s.Addr())
	}
	if s.PID() == pid {
		t.Fatalf("Restart kept pid %d", pid)
	}
	if n, err := c.DBSize(ctx).Result(); err != nil || n != 0 {
		t.Fatalf("DBSIZE after restart = %d, %v; want 0, nil", n, err)
	}

	// Restart of a running server kills it first.
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	s.Restart(t)
	if n, err := c.DBSize(ctx).Result(); err != nil || n != 0 {
		t.Fatalf("DBSIZE after second restart = %d, %v; want 0, nil", n, err)
	}

	s.Stop(t)
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Fatal("a stopped server still accepts connections")
	}
	s.Restart(t)
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after Stop and Restart: %v", err)
	}
}

func TestStartMasters(t *testing.T) {
	ctx := context.Background()
	servers := StartMasters(t, 3)
	if len(servers) != 3 {
		t.Fatalf("got %d servers, want 3", len(servers))
	}
	seen := map[string]bool{}
	for i, s := range servers {
		if seen[s.Addr()] {
			t.Fatalf("address %s used twice", s.Addr())
		}
		seen[s.Addr()] = true
		c := s.Client(t)
		if err := c.Set(ctx, "who", i, 0).Err(); err != nil {
			t.Fatalf("%s: SET: %v", s.Addr(), err)
		}
	}
	for i, s := range servers {
		got, err := s.Client(t).Get(ctx, "who").Int()
		if err != nil || got != i {
			t.Fatalf("%s: GET who = %d, %v; want %d (servers must be independent)", s.Addr(), got, err, i)
		}
	}
}

func TestCluster(t *testing.T) {
	ctx := context.Background()
	cl := StartCluster(t)
	if n := len(cl.Servers()); n != 3 {
		t.Fatalf("%d servers, want 3", n)
	}
	if n := len(cl.Addrs()); n != 3 {
		t.Fatalf("%d addresses, want 3", n)
	}
	c := cl.Client(t)
	nodes := map[string]bool{}
	for i := range 30 {
		key := fmt.Sprintf("key-%d", i)
		if err := c.Set(ctx, key, i, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", key, err)
		}
		got, err := c.Get(ctx, key).Int()
		if err != nil || got != i {
			t.Fatalf("GET %s = %d, %v; want %d", key, got, err, i)
		}
		node, err := c.MasterForKey(ctx, key)
		if err != nil {
			t.Fatalf("MasterForKey(%s): %v", key, err)
		}
		nodes[node.Options().Addr] = true
	}
	if len(nodes) != 3 {
		t.Fatalf("keys landed on %d nodes, want 3: %v", len(nodes), nodes)
	}
}

func TestMini(t *testing.T) {
	ctx := context.Background()
	m, c := Mini(t)
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if got, err := m.Get("k"); err != nil || got != "v" {
		t.Fatalf("miniredis has k = %q, %v", got, err)
	}
}

func TestUnique(t *testing.T) {
	a, b := Unique(t), Unique(t)
	if a == b {
		t.Fatalf("Unique returned %q twice", a)
	}
	t.Run("sub test/with {odd} chars", func(t *testing.T) {
		n := Unique(t)
		if strings.ContainsAny(n, "/ {}") {
			t.Fatalf("Unique(t) = %q contains unsanitised characters", n)
		}
		if !strings.HasPrefix(n, "TestUnique_sub_test_with__odd__chars-") {
			t.Fatalf("Unique(t) = %q", n)
		}
	})
}

func TestChildRoundTrip(t *testing.T) {
	c := StartChild(t, "echo", "a", "b c")
	if c.PID() <= 0 {
		t.Fatalf("PID() = %d", c.PID())
	}
	c.WaitLine(t, "ready", waitTimeout)
	c.Send(t, "hello")
	if got := c.WaitLine(t, "echo ", waitTimeout); got != "echo a,b c hello" {
		t.Fatalf("got %q", got)
	}
	c.Send(t, "one")
	c.Send(t, "two")
	if got := c.WaitLine(t, "echo a,b c two", waitTimeout); got != "echo a,b c two" {
		t.Fatalf("got %q", got)
	}
	c.Send(t, "quit")
	c.WaitLine(t, "bye", waitTimeout)
	c.Wait(t, waitTimeout)
}

func TestChildStdinEOF(t *testing.T) {
	c := StartChild(t, "echo")
	c.CloseStdin(t)
	c.WaitLine(t, "eof", waitTimeout)
	c.Wait(t, waitTimeout)
}

func TestChildKill(t *testing.T) {
	c := StartChild(t, "block")
	if got := c.WaitLine(t, "ready", waitTimeout); got != "ready" {
		t.Fatalf("got %q", got)
	}
	pid := c.PID()
	c.Kill(t)
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("child %d still exists after Kill (kill -0: %v)", pid, err)
	}
	c.Kill(t) // no-op on an exited child
}

func TestChildPanicExitsWithStatus1(t *testing.T) {
	c := StartChild(t, "panic")
	if err := c.proc.wait(waitTimeout); err != nil {
		t.Fatal(err)
	}
	var exit interface{ ExitCode() int }
	if !errors.As(c.proc.err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("child ended with %v, want exit status 1", c.proc.err)
	}
	if r := c.report(); !strings.Contains(r, `child "panic" panicked: boom`) {
		t.Fatalf("stderr does not show the panic:%s", r)
	}
}

func TestCounter(t *testing.T) {
	ctx := context.Background()
	_, c := Mini(t)
	counter := NewCounter()
	c.AddHook(counter.Hook())
	if err := c.Ping(ctx).Err(); err != nil { // opens the connection
		t.Fatalf("PING: %v", err)
	}
	counter.Reset()
	if counter.Total() != 0 {
		t.Fatalf("Total() = %d after Reset", counter.Total())
	}

	if _, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "a", 1, 0)
		p.Set(ctx, "b", 2, 0)
		p.Get(ctx, "a")
		return nil
	}); err != nil {
		t.Fatalf("pipeline: %v", err)
	}
	if got := counter.Count("set"); got != 2 {
		t.Errorf("Count(set) = %d, want 2", got)
	}
	if got := counter.Count("GET"); got != 1 {
		t.Errorf("Count(GET) = %d, want 1", got)
	}

	if err := c.Eval(ctx, "return 1", nil).Err(); err != nil {
		t.Fatalf("EVAL: %v", err)
	}
	script := redis.NewScript("return 2")
	if err := script.Load(ctx, c).Err(); err != nil {
		t.Fatalf("SCRIPT LOAD: %v", err)
	}
	if err := script.EvalSha(ctx, c, nil).Err(); err != nil {
		t.Fatalf("EVALSHA: %v", err)
	}
	if got := counter.Count("evalsha"); got != 1 {
		t.Errorf("Count(evalsha) = %d, want 1", got)
	}
	if got := counter.Count("eval"); got != 2 {
		t.Errorf("Count(eval) = %d, want 2 (EVAL and EVALSHA)", got)
	}
	if got := counter.Scripts(); got != 2 {
		t.Errorf("Scripts() = %d, want 2", got)
	}
	if got := counter.Total(); got != 6 {
		t.Errorf("Total() = %d, want 6 (3 pipelined, EVAL, SCRIPT LOAD, EVALSHA)", got)
	}

	if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, "n")
		return nil
	}); err != nil {
		t.Fatalf("transaction: %v", err)
	}
	for _, name := range []string{"multi", "incr", "exec"} {
		if got := counter.Count(name); got != 1 {
			t.Errorf("Count(%s) = %d, want 1", name, got)
		}
	}

	counter.Reset()
	if counter.Total() != 0 || counter.Scripts() != 0 || counter.Count("set") != 0 {
		t.Fatal("Reset left counts behind")
	}
}

func TestCounterOnServer(t *testing.T) {
	ctx := context.Background()
	c := StartServer(t).Client(t)
	counter := NewCounter()
	c.AddHook(counter.Hook())
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}
	counter.Reset()
	if err := c.Eval(ctx, "return redis.call('SET', KEYS[1], ARGV[1])", []string{"k"}, "v").Err(); err != nil {
		t.Fatalf("EVAL: %v", err)
	}
	if got := counter.Scripts(); got != 1 {
		t.Errorf("Scripts() = %d, want 1", got)
	}
	if got := counter.Total(); got != 1 {
		t.Errorf("Total() = %d, want 1", got)
	}
}
