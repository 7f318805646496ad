package redistest

import (
	"errors"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// echoChild answers every stdin line with "echo <args> <line>" until it
// reads "quit" or its stdin closes.
func echoChild(args []string) {
	ChildPrintf("ready")
	for line := range ChildLines() {
		if line == "quit" {
			ChildPrintf("bye")
			return
		}
		ChildPrintf("echo %s %s", strings.Join(args, ","), line)
	}
	ChildPrintf("eof")
}

// blockChild prints "ready" and then waits for input that never comes.
func blockChild([]string) {
	ChildPrintf("noise")
	ChildPrintf("ready")
	for range ChildLines() {
	}
}

func TestChild_talks_both_ways(t *testing.T) {
	c := StartChild(t, "echo", "a", "b c")
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

func TestChild_CloseStdin_ends_ChildLines(t *testing.T) {
	c := StartChild(t, "echo")
	c.CloseStdin(t)
	c.WaitLine(t, "eof", waitTimeout)
	c.Wait(t, waitTimeout)
}

func TestChild_Kill_kills_the_process(t *testing.T) {
	c := StartChild(t, "block")
	if got := c.WaitLine(t, "ready", waitTimeout); got != "ready" {
		t.Fatalf("got %q, want the line skipping the noise before it", got)
	}
	pid := c.proc.pid()
	c.Kill(t)
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("child %d still exists after Kill (kill -0: %v)", pid, err)
	}
	c.Kill(t) // no-op on an exited child
}

func TestChild_panic_exits_with_status_1_and_shows_on_stderr(t *testing.T) {
	c := StartChild(t, "panic")
	if err := c.proc.wait(waitTimeout); err != nil {
		t.Fatal(err)
	}
	var exit interface{ ExitCode() int }
	if !errors.As(c.proc.err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("child ended with %v, want exit status 1", c.proc.err)
	}
	wantFailure(t, func(tb testing.TB) { c.Wait(tb, waitTimeout) }, "exit status 1", `child "panic" panicked: boom`)
}

func TestStartChild_of_an_unknown_name_fails_at_WaitLine(t *testing.T) {
	c := StartChild(t, "nobody")
	wantFailure(t, func(tb testing.TB) { c.WaitLine(tb, "ready", waitTimeout) },
		"exit status 2", `no child named "nobody"`, "block, counting-forgetful")
}

func TestWaitLine_fails_after_timeout(t *testing.T) {
	c := StartChild(t, "block")
	wantFailure(t, func(tb testing.TB) { c.WaitLine(tb, "never", 20*time.Millisecond) },
		`printed no line starting with "never" within 20ms`)
}

func TestCountRun_passes_with_a_working_lock(t *testing.T) {
	c, name := newQueueLock(t)
	CountRun{
		Child: "counting-queue", Addrs: []string{c.Options().Addr}, Name: name,
		Procs: 3, Goroutines: 4, Rounds: 5, Fenced: true, Timeout: time.Minute,
	}.Run(t)
	if n, err := c.Get(Ctx(t, queryTimeout), CountRun{Name: name}.countKey()).Int(); n != 60 {
		t.Fatalf("counter = %d, %v; want 60 (3 processes × 4 goroutines × 5 rounds)", n, err)
	}
}

func TestCountRun_fails_when_an_increment_is_lost(t *testing.T) {
	mr, _ := Mini(t)
	run := CountRun{
		Child: "counting-forgetful", Addrs: []string{mr.Addr()}, Name: Unique(t),
		Procs: 1, Goroutines: 1, Rounds: 2, Timeout: time.Minute,
	}
	wantFailure(t, func(tb testing.TB) { run.Run(tb) }, "want 2 (lost updates")
}

func TestCountRun_fails_when_tokens_do_not_grow(t *testing.T) {
	mr, _ := Mini(t)
	run := CountRun{
		Child: "counting-none", Addrs: []string{mr.Addr()}, Name: Unique(t),
		Procs: 1, Goroutines: 1, Rounds: 2, Fenced: true, Timeout: time.Minute,
	}
	wantFailure(t, func(tb testing.TB) { run.Run(tb) }, "round 1: token 1 after token 1")

	// Without fencing the same child runs to the end.
	run.Name, run.Fenced = Unique(t), false
	run.Run(t)
}

func TestClientSpec_round_trip(t *testing.T) {
	mr, c := Mini(t)
	spec := ClientSpec(c)
	if spec != "standalone="+mr.Addr() {
		t.Fatalf("ClientSpec = %q", spec)
	}
	back := SpecClient(spec)
	defer back.Close()
	if err := back.Set(Ctx(t, waitTimeout), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, _ := mr.Get("k"); got != "v" {
		t.Fatalf("the client from the spec talks to another server: k = %q", got)
	}

	// No server needed: the cluster client only keeps the seed addresses.
	addrs := []string{"127.0.0.1:1", "127.0.0.1:2"}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	defer cc.Close()
	spec = ClientSpec(cc)
	if spec != "cluster=127.0.0.1:1,127.0.0.1:2" {
		t.Fatalf("ClientSpec = %q", spec)
	}
	backCluster, ok := SpecClient(spec).(*redis.ClusterClient)
	if !ok {
		t.Fatalf("SpecClient(%q) is not a cluster client", spec)
	}
	defer backCluster.Close()
	if got := backCluster.Options().Addrs; !slices.Equal(got, addrs) {
		t.Fatalf("cluster client from the spec has seeds %q, want %q", got, addrs)
	}
}

func TestChild_Stop_stops_the_child_until_Continue(t *testing.T) {
	c := StartChild(t, "echo")
	c.WaitLine(t, "ready", waitTimeout)
	c.Stop(t)
	if stopped, err := isStopped(c.proc.pid()); !stopped || err != nil {
		t.Fatalf("child not stopped after Stop: %v, %v", stopped, err)
	}
	c.Send(t, "hello")
	c.Continue(t)
	Eventually(t, waitTimeout, "the child to run again", func() bool {
		stopped, err := isStopped(c.proc.pid())
		return err == nil && !stopped
	})
	c.WaitLine(t, "echo  hello", waitTimeout)
	c.Send(t, "quit")
	c.Wait(t, waitTimeout)
}
