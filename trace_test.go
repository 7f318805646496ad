package lockkit_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// counts counts the Renewed and Reconnected events a Trace gets, and the
// Reconnected ones that do not say why.
type counts struct{ renewed, reconnected, unexplained atomic.Int64 }

func (c *counts) trace() *lockkit.Trace {
	return &lockkit.Trace{
		Renewed: func(lockkit.RenewInfo) { c.renewed.Add(1) },
		Reconnected: func(i lockkit.ReconnectInfo) {
			c.reconnected.Add(1)
			if i.Err == nil {
				c.unexplained.Add(1)
			}
		},
	}
}

// TestTrace_Renewed_and_Reconnected_reach_the_Clients_hooks_only: the
// watchdog's round trips and a broken pub/sub connection are the Client's
// events: they are reported to the hooks given to New and added with
// AddTrace, and never to a lock's own (WithTrace on the lock). Reconnected
// says why the connection broke (the server closed it).
func TestTrace_Renewed_and_Reconnected_reach_the_Clients_hooks_only(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := srv.Client(t)
	var given, added, own counts
	lc := redistest.Lockkit(t, srv.Client(t), lockkit.WithTrace(given.trace()))
	lc.AddTrace(added.trace())
	name := redistest.Unique(t)
	opts := []lockkit.Option{lockkit.WithTrace(own.trace()), lockkit.WithWatchdogTimeout(300 * time.Millisecond)}
	holder := reentrant.New(lc, name, opts...)
	redistest.MustLock(t, holder)
	ctx := redistest.Ctx(t, 30*time.Second)
	got := redistest.LockAsync(ctx, reentrant.New(lc, name, opts...)) // subscribes the Client
	redistest.Eventually(t, 10*time.Second, "the pub/sub connection to be killed", func() bool {
		n, err := admin.ClientKillByFilter(ctx, "TYPE", "pubsub").Result()
		return err == nil && n > 0
	})
	redistest.Eventually(t, 10*time.Second, "Reconnected and two Renewed for both Client hooks", func() bool {
		return given.reconnected.Load() > 0 && added.reconnected.Load() > 0 && given.renewed.Load() > 1 && added.renewed.Load() > 1
	})
	redistest.MustUnlock(t, holder)
	if err := redistest.Receive(t, got, 10*time.Second, "the waiter's Lock"); err != nil {
		t.Fatal(err)
	}
	if n, m := own.renewed.Load(), own.reconnected.Load(); n != 0 || m != 0 {
		t.Fatalf("a lock's own Trace got %d Renewed and %d Reconnected; want none", n, m)
	}
	if n := given.unexplained.Load(); n != 0 {
		t.Fatalf("%d of %d Reconnected events had no Err", n, given.reconnected.Load())
	}
}

// TestTrace_WaitDone_reports_the_error_Lock_returns: a wait that its ctx
// ends is reported to WaitDone with the error Lock returns, which matches
// ErrNotObtained and the ctx's error, after a WaitStart.
func TestTrace_WaitDone_reports_the_error_Lock_returns(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	lc := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	redistest.MustLock(t, reentrant.New(lc, name))
	var started atomic.Int64
	done := make(chan lockkit.WaitDoneInfo, 1)
	w := reentrant.New(lc, name, lockkit.WithTrace(&lockkit.Trace{
		WaitStart: func(lockkit.WaitStartInfo) { started.Add(1) },
		WaitDone:  func(i lockkit.WaitDoneInfo) { done <- i },
	}))
	err := w.Lock(redistest.Ctx(t, time.Second))
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	info := redistest.Receive(t, done, 10*time.Second, "WaitDone")
	if info.Err == nil || info.Err.Error() != err.Error() || info.Lock.Name != name || started.Load() != 1 {
		t.Fatalf("WaitDone = %+v after %d WaitStart; want Lock's error %q and one WaitStart", info, started.Load(), err)
	}
	redistest.WantErr(t, info.Err, lockkit.ErrNotObtained, context.DeadlineExceeded)
}

// TestClient_AddTrace_reports_in_order_and_ignores_nil: the hooks given to
// New come first, then those added with AddTrace in the order added, each
// called once per event, beside a lock's own; AddTrace(nil) adds nothing,
// and a lock's WithTrace(nil) leaves its own hooks as they were. Hooks
// added from many goroutines at once are all kept.
func TestClient_AddTrace_reports_in_order_and_ignores_nil(t *testing.T) {
	_, rc := redistest.Mini(t)
	var order []string // appended to on the Lock's goroutine: hooks run synchronously
	acquired := func(who string) *lockkit.Trace {
		return &lockkit.Trace{Acquired: func(lockkit.AcquiredInfo) { order = append(order, who) }}
	}
	lc := redistest.Lockkit(t, rc, lockkit.WithTrace(acquired("given")))
	lc.AddTrace(acquired("first"))
	lc.AddTrace(nil)
	lc.AddTrace(acquired("second"))
	if n := len(lc.Traces()); n != 3 {
		t.Fatalf("Traces has %d hooks, want 3 (AddTrace(nil) adds none)", n)
	}
	m := reentrant.New(lc, redistest.Unique(t), lockkit.WithTrace(acquired("own")), lockkit.WithTrace(nil))
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
	clientHooks := slices.DeleteFunc(slices.Clone(order), func(s string) bool { return s == "own" })
	if !slices.Equal(clientHooks, []string{"given", "first", "second"}) || len(order) != 4 {
		t.Fatalf("Acquired reported to %v; want given, first, second once each, and own", order)
	}

	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() { lc.AddTrace(&lockkit.Trace{}) })
	}
	wg.Wait()
	if n := len(lc.Traces()); n != 3+16 {
		t.Fatalf("Traces has %d hooks after 16 concurrent AddTrace, want %d", n, 3+16)
	}
}

// TestWithTrace_the_last_one_given_counts: WithTrace sets the hooks, as
// every option sets its value: given twice to New or to a lock, the later
// replaces the earlier (a nil one changes nothing); hooks are added to a
// Client with AddTrace.
func TestWithTrace_the_last_one_given_counts(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	var first, last, own1, own2 atomic.Int64
	acquired := func(n *atomic.Int64) *lockkit.Trace {
		return &lockkit.Trace{Acquired: func(lockkit.AcquiredInfo) { n.Add(1) }}
	}
	lc := redistest.Lockkit(t, rc, lockkit.WithTrace(acquired(&first)), lockkit.WithTrace(acquired(&last)), lockkit.WithTrace(nil))
	if n := len(lc.Traces()); n != 1 {
		t.Fatalf("Traces() = %d hook sets, want 1", n)
	}
	m := reentrant.New(lc, redistest.Unique(t), lockkit.WithTrace(acquired(&own1)), lockkit.WithTrace(acquired(&own2)))
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
	if a, b, c, d := first.Load(), last.Load(), own1.Load(), own2.Load(); a != 0 || b != 1 || c != 0 || d != 1 {
		t.Fatalf("Acquired reached the Client's first and last Trace %d and %d times, the lock's %d and %d; want 0, 1, 0, 1", a, b, c, d)
	}
}
