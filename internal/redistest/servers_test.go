package redistest

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// serverPID returns the pid of s's running process, 0 if it is stopped.
func serverPID(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return 0
	}
	return s.proc.pid()
}

// wantGone fails the test unless no process has pid and nothing listens on
// addr.
func wantGone(t *testing.T, pid int, addr string) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("process %d still exists (kill -0: %v)", pid, err)
	}
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Fatalf("%s still accepts connections", addr)
	}
}

func TestServer_Kill_Stop_and_Restart(t *testing.T) {
	ctx := Ctx(t, waitTimeout)
	s := StartServer(t)
	addr, pid := s.Addr(), serverPID(s)
	if !strings.HasPrefix(addr, "127.0.0.1:") || pid <= 0 {
		t.Fatalf("Addr() = %q, pid %d", addr, pid)
	}
	c := s.Client(t)
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}

	s.Kill(t)
	wantGone(t, pid, addr)
	s.Kill(t) // no-op on a stopped server

	s.Restart(t)
	if s.Addr() != addr || serverPID(s) == pid {
		t.Fatalf("Restart moved the server from %s (pid %d) to %s (pid %d); want a new process on the same port",
			addr, pid, s.Addr(), serverPID(s))
	}
	if n, err := c.DBSize(ctx).Result(); err != nil || n != 0 {
		t.Fatalf("DBSIZE after restart = %d, %v; want 0, nil", n, err)
	}

	// Restart of a running server kills it first.
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	pid = serverPID(s)
	s.Restart(t)
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the process before Restart, %d, still exists (kill -0: %v)", pid, err)
	}
	if n, err := c.DBSize(ctx).Result(); err != nil || n != 0 {
		t.Fatalf("DBSIZE after second restart = %d, %v; want 0, nil", n, err)
	}

	pid = serverPID(s)
	s.Stop(t)
	wantGone(t, pid, addr)
	s.Restart(t)
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after Stop and Restart: %v", err)
	}
}

func TestStartMasters_starts_independent_servers(t *testing.T) {
	ctx := Ctx(t, waitTimeout)
	servers := StartMasters(t, 3)
	if len(servers) != 3 {
		t.Fatalf("got %d servers, want 3", len(servers))
	}
	for i, s := range servers {
		if err := s.Client(t).Set(ctx, "who", i, 0).Err(); err != nil {
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

func TestProbe_tells_the_started_server_from_one_that_took_its_port(t *testing.T) {
	s := StartServer(t)
	pid := serverPID(s)
	if err := probe(s.Addr(), pid); err != nil {
		t.Fatalf("probe of the server with its own pid: %v", err)
	}
	if err := probe(s.Addr(), pid+1); !errors.Is(err, errPortInUse) {
		t.Fatalf("probe expecting another pid = %v, want errPortInUse", err)
	}
	s.Kill(t)
	if err := probe(s.Addr(), pid); err == nil || errors.Is(err, errPortInUse) {
		t.Fatalf("probe of a killed server = %v, want a connection error", err)
	}
}

func TestServer_Stall_holds_every_later_command_until_it_ends(t *testing.T) {
	const stall = 2 * time.Second
	s := StartServer(t)
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), ReadTimeout: stall + waitTimeout})
	defer c.Close()
	ctx := Ctx(t, stall+waitTimeout)
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	before, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}

	s.Stall(t, stall)
	// The server's clock says when it served TIME: not before the stall,
	// which had begun when Stall returned, was over.
	after, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatalf("TIME after the stall: %v", err)
	}
	if got := after.Sub(before); got < stall {
		t.Fatalf("TIME served %v after the one before Stall; want the %v stall in between", got, stall)
	}
	if got, err := c.Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Fatalf("GET after the stall = %q, %v; want the data kept", got, err)
	}
}

func TestServer_Stall_cleanup_leaves_the_stall_to_Kill(t *testing.T) {
	const stall = time.Minute
	s := StartServer(t)
	start := time.Now()
	t.Run("stall", func(t *testing.T) { s.Stall(t, stall) })
	if waited := time.Since(start); waited >= stall {
		t.Fatalf("Stall and its cleanup took %v: they waited out the stall", waited)
	}
	pid := serverPID(s)
	s.Kill(t) // fails the test unless the stalled server dies at once
	wantGone(t, pid, s.Addr())
	s.Restart(t)
	if err := s.Client(t).Ping(Ctx(t, waitTimeout)).Err(); err != nil {
		t.Fatalf("PING after Kill and Restart: %v", err)
	}
}

func TestServer_Stall_of_a_stopped_server_fails(t *testing.T) {
	s := StartServer(t)
	s.Stop(t)
	wantFailure(t, func(tb testing.TB) { s.Stall(tb, time.Second) }, "Stall of redis-server "+s.Addr())
}

func TestCluster(t *testing.T) {
	cl := StartCluster(t)
	c := cl.Client(t)
	ctx := Ctx(t, clusterReadyTimeout)
	if n := len(cl.Servers()); n != 3 {
		t.Fatalf("%d servers, want 3", n)
	}

	t.Run("spreads_keys_over_three_masters", func(t *testing.T) {
		masters := map[string]bool{}
		for i := range 30 {
			key := fmt.Sprintf("key-%d", i)
			if err := c.Set(ctx, key, i, 0).Err(); err != nil {
				t.Fatalf("SET %s: %v", key, err)
			}
			if got, err := c.Get(ctx, key).Int(); err != nil || got != i {
				t.Fatalf("GET %s = %d, %v; want %d", key, got, err, i)
			}
			node, err := c.MasterForKey(ctx, key)
			if err != nil {
				t.Fatalf("MasterForKey(%s): %v", key, err)
			}
			masters[node.Options().Addr] = true
		}
		if len(masters) != 3 {
			t.Fatalf("keys landed on %d masters, want 3: %v", len(masters), masters)
		}
	})

	t.Run("NamesOnDistinctMasters", func(t *testing.T) {
		names := NamesOnDistinctMasters(t, c, 3)
		masters := map[string]bool{}
		for _, name := range names {
			node, err := c.MasterForKey(ctx, "lockkit:{"+name+"}")
			if err != nil {
				t.Fatal(err)
			}
			masters[node.Options().Addr] = true
		}
		if len(names) != 3 || len(masters) != 3 {
			t.Fatalf("names %q live on %d masters, want 3 names on 3", names, len(masters))
		}
		wantFailure(t, func(tb testing.TB) { NamesOnDistinctMasters(tb, c, 4) }, "found no 4 names on distinct masters")
	})

	t.Run("restarted_node_rejoins_without_data", func(t *testing.T) {
		node := cl.Servers()[0]
		key := ""
		for i := 0; key == ""; i++ {
			k := fmt.Sprintf("restart-%d", i)
			if m, err := c.MasterForKey(ctx, k); err != nil {
				t.Fatal(err)
			} else if m.Options().Addr == node.Addr() {
				key = k
			}
		}
		if err := c.Set(ctx, key, "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		node.Restart(t)
		if err := cl.waitReady(clusterReadyTimeout); err != nil {
			t.Fatalf("after restarting %s: %v", node.Addr(), err)
		}
		if err := c.Get(ctx, key).Err(); !errors.Is(err, redis.Nil) {
			t.Fatalf("GET %s after its node restarted = %v, want redis.Nil", key, err)
		}
	})
}
