package latch_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestAwait_on_an_open_latch_is_one_round_trip: once its script is
// loaded, Await on an open latch sends one command, as documented.
func TestAwait_on_an_open_latch_is_one_round_trip(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		l := latch.New(redistest.Lockkit(t, rc), redistest.Unique(t), 1)
		mustCountDown(t, l, 0)
		if _, err := l.Count(redistest.Ctx(t, redistest.Hang)); err != nil { // load the script
			t.Fatal(err)
		}
		sent := redistest.CountCommands(rc)
		if err := l.Await(redistest.Ctx(t, redistest.Hang)); err != nil {
			t.Fatalf("Await on an open latch = %v", err)
		}
		if n := sent.Total(); n != 1 {
			t.Fatalf("Await on an open latch sent %d commands, want 1", n)
		}
	})
}

// TestAwait_with_an_ended_ctx_matches_both_errors calls Await with a ctx
// already ended: it fails with ErrNotObtained and ctx.Err().
func TestAwait_with_an_ended_ctx_matches_both_errors(t *testing.T) {
	_, rc := redistest.Mini(t)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	err := latch.New(redistest.Lockkit(t, rc), redistest.Unique(t), 1).Await(ended)
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.Canceled)
}

// TestAwait_keeps_waiting_while_the_server_is_down kills the server under
// a sleeping waiter: its failed reads do not end its wait, another Await
// whose ctx ends meanwhile reports the last failure with both errors, and
// once the server is back the count-down that opens the latch wakes the
// first waiter.
func TestAwait_keeps_waiting_while_the_server_is_down(t *testing.T) {
	s := redistest.StartServer(t)
	c := redistest.Lockkit(t, s.Client(t))
	name, got := sleepingAwait(t, c)
	s.Kill(t)
	// Each read against a dead server takes go-redis's dial retries:
	// the ctx leaves time for several.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	defer cancel()
	err := latch.New(c, name, 1).Await(ctx)
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	if !strings.Contains(err.Error(), "last failure") {
		t.Fatalf("Await against a dead server = %v, want its last failure named", err)
	}
	redistest.NotYet(t, got, "the waiter returned while the server was down")
	s.Restart(t)
	mustCountDown(t, latch.New(redistest.Lockkit(t, s.Client(t)), name, 1), 0)
	if err := redistest.Receive(t, got, redistest.Hang, "Await to return"); err != nil {
		t.Fatalf("Await after the server came back = %v", err)
	}
}

// TestAwait_wakes_after_a_cut_connection_heals cuts the waiter's Client
// off the server and opens the latch meanwhile: once the waiter has given
// up its sleep (its notifier found the connection broken) and the cut
// heals, it reads the count again and returns.
func TestAwait_wakes_after_a_cut_connection_heals(t *testing.T) {
	s := redistest.StartServer(t)
	p := redistest.StartProxy(t, s.Addr())
	c := redistest.Lockkit(t, p.Client(t))
	name, got := sleepingAwait(t, c)
	p.Cut()
	mustCountDown(t, latch.New(redistest.Lockkit(t, s.Client(t)), name, 1), 0)
	waitSleeping(t, c, name, 0)
	p.Heal()
	if err := redistest.Receive(t, got, redistest.Hang, "Await to return"); err != nil {
		t.Fatalf("Await after the cut healed = %v", err)
	}
}

// TestAwait_through_a_stalled_server stalls the server under a sleeping
// waiter and opens the latch then: the count-down and the wake-up are
// served after the stall, and the waiter returns.
func TestAwait_through_a_stalled_server(t *testing.T) {
	s := redistest.StartServer(t)
	c := redistest.Lockkit(t, s.Client(t))
	name, got := sleepingAwait(t, c)
	s.Stall(t, 2*time.Second)
	mustCountDown(t, latch.New(redistest.Lockkit(t, s.Client(t)), name, 1), 0)
	if err := redistest.Receive(t, got, redistest.Hang, "Await to return"); err != nil {
		t.Fatalf("Await after the stall = %v", err)
	}
}
