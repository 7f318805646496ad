package lockkit_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/spin"
)

// TestClose_during_a_network_cut_reports_holds_lost_and_ends_waits_at_once:
// a Client holds locks of several kinds, and waits for others that
// another Client holds, when the network to the server is cut; the
// attempts its waiters make meanwhile hang (go-redis waits its read
// timeout, times its retries). Close reports every hold lost, with
// ErrClosed, and the calls whose attempt was on its way return ErrClosed,
// within seconds: not once the leases lapse (20 s here) or go-redis gives
// the requests up. So do those asleep until a release wakes them, before
// Close has waited for the requests left behind.
func TestClose_during_a_network_cut_reports_holds_lost_and_ends_waits_at_once(t *testing.T) {
	srv := redistest.StartServer(t)
	proxy := redistest.StartProxy(t, srv.Addr())
	// The requests sent into the cut stay held up until it heals, as they
	// do on a client whose read timeout is long.
	rc := redis.NewClient(&redis.Options{Addr: proxy.Addr(), ReadTimeout: time.Minute})
	t.Cleanup(func() { _ = rc.Close() })
	var mu sync.Mutex
	var lost []lockkit.LostInfo
	lc := lockkit.New(rc, lockkit.WithWatchdogTimeout(20*time.Second), lockkit.WithTrace(&lockkit.Trace{Lost: func(i lockkit.LostInfo) {
		mu.Lock()
		defer mu.Unlock()
		lost = append(lost, i)
	}}))
	t.Cleanup(func() { _ = lc.Close() })
	other := redistest.Lockkit(t, srv.Client(t))
	ctx := redistest.Ctx(t, 2*time.Minute)
	name := redistest.Unique(t)

	held := []interface {
		redistest.NamedLocker
		Lost() <-chan struct{}
	}{reentrant.New(lc, name+"-r"), fair.New(lc, name+"-f"), spin.New(lc, name+"-s")}
	for _, l := range held {
		redistest.MustLock(t, l)
	}
	permit, err := semaphore.New(lc, name+"-sem", 1).Acquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []redistest.NamedLocker{reentrant.New(other, name+"-wr"), fair.New(other, name+"-wf"), spin.New(other, name+"-ws")} {
		redistest.MustLock(t, l)
	}
	if _, err := semaphore.New(other, name+"-wsem", 1).Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	waits := map[string]func(context.Context) error{
		"reentrant Lock": reentrant.New(lc, name+"-wr").Lock,
		"fair Lock":      fair.New(lc, name+"-wf").Lock,
		"spin Lock":      spin.New(lc, name+"-ws").Lock,
		"semaphore Acquire": func(ctx context.Context) error {
			_, err := semaphore.New(lc, name+"-wsem", 1).Acquire(ctx, 1)
			return err
		},
		"latch Await": latch.New(lc, name+"-latch", 1).Await,
	}
	type outcome struct {
		call string
		err  error
	}
	done := make(chan outcome, len(waits))
	for call, wait := range waits {
		go func() { done <- outcome{call, wait(ctx)} }()
	}
	redistest.Eventually(t, 10*time.Second, "every call to wait", func() bool {
		return lc.Notifier().Channels() == len(waits)-1 // the spin lock waits by backoff
	})

	proxy.Cut()
	sent := redistest.CountCommands(rc)
	redistest.Eventually(t, 10*time.Second, "attempts to be sent into the cut", func() bool { return sent.Total() >= 3 })
	closed := make(chan error, 1)
	go func() { closed <- lc.Close() }()
	for _, l := range held {
		redistest.Receive(t, l.Lost(), 5*time.Second, "a hold to be reported lost")
	}
	redistest.Receive(t, permit.Lost(), 5*time.Second, "the permit to be reported lost")
	// Every call returns at once: those whose attempt was on its way (fair,
	// spin, semaphore) and those asleep until a release wakes them
	// (reentrant, latch), while Close still waits for the requests left
	// behind.
	for len(waits) > 0 {
		o := redistest.Receive(t, done, 5*time.Second, fmt.Sprintf("the calls to return (%d left)", len(waits)))
		if !errors.Is(o.err, lockkit.ErrClosed) {
			t.Errorf("%s = %v; want ErrClosed", o.call, o.err)
		}
		delete(waits, o.call)
	}
	select {
	case err := <-closed:
		t.Fatalf("Close = %v before the cut healed; want it to wait for the requests left behind", err)
	default:
	}
	mu.Lock()
	for _, i := range lost {
		if !errors.Is(i.Err, lockkit.ErrClosed) {
			t.Errorf("%s %q reported lost with %v; want ErrClosed", i.Lock.Kind, i.Lock.Name, i.Err)
		}
	}
	mu.Unlock()
	proxy.Heal() // Close waits for the requests left behind, held up by the cut
	redistest.Receive(t, closed, redistest.Hang, "Close")
}
