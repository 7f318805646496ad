package lockkit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/spin"
)

// TestClose_ends_a_wait_asleep_at_once_while_a_request_is_held_up: a
// Client waits for a lock of every kind that another Client holds, and a
// request of another call of it is held up: its reply does not come.
// Close ends the wait at once with ErrClosed, while Close itself still
// waits for the request left behind.
func TestClose_ends_a_wait_asleep_at_once_while_a_request_is_held_up(t *testing.T) {
	srv := redistest.StartServer(t)
	eachKindInParallel(t, func(t *testing.T, ctx context.Context, k contended, name string) {
		holder := redistest.Lockkit(t, srv.Client(t))
		rc := srv.Client(t)
		// Only the scripts of the other call, on a name of its own.
		silence := &redistest.Silence{Max: 2 * redistest.Hang, Match: func(cmd redis.Cmder) bool {
			return redistest.IsScript(cmd) && strings.Contains(fmt.Sprint(cmd.Args()...), name+"-other")
		}}
		rc.AddHook(silence)
		started, trace := waitStarted()
		waiter := lockkit.New(rc, lockkit.WithTrace(trace))
		t.Cleanup(func() { _ = waiter.Close() })
		release, err := k.hold(ctx, holder, name)
		if err != nil {
			t.Fatalf("holder: %v", err)
		}
		got := startWait(ctx, t, k, waiter, name, started)

		silence.On()
		other := spin.New(holder, name+"-other")
		redistest.MustLock(t, other)
		tried := make(chan error, 1)
		go func() {
			_, err := spin.New(waiter, name+"-other").TryLock(ctx)
			tried <- err
		}()
		redistest.Eventually(t, redistest.Hang, "the TryLock's request to be held up", func() bool { return silence.Held() > 0 })
		closed := make(chan error, 1)
		go func() { closed <- waiter.Close() }()

		if o := redistest.Receive(t, got, closedBound, "the wait to return"); !errors.Is(o.err, lockkit.ErrClosed) {
			t.Errorf("wait = %v; want an error matching ErrClosed", o.err)
		}
		select {
		case err := <-closed:
			t.Fatalf("Close = %v while a request was held up; want it to wait for the request", err)
		default:
		}
		silence.Off()
		redistest.Receive(t, closed, redistest.Hang, "Close")
		if err := <-tried; err != nil && !errors.Is(err, lockkit.ErrClosed) {
			t.Errorf("TryLock = %v; want nil or an error matching ErrClosed", err)
		}
		redistest.MustUnlock(t, other)
		if err := release(ctx); err != nil {
			t.Errorf("holder's release: %v", err)
		}
	})
}
