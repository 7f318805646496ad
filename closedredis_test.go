package lockkit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// closedBound is how long a call may take to see that its go-redis client
// was closed: far below the lease and the ctx of the calls.
const closedBound = 5 * time.Second

// TestClosed_go_redis_client_ends_every_wait_at_once_with_redis_ErrClosed
// closes the go-redis client under a waiter of every kind (its lockkit
// Client left open), while another Client, of a go-redis client of its
// own, holds the lock: the wait returns at once with an error matching
// redis.ErrClosed rather than waiting for a client that will never come
// back, and the holder, untouched, gives the lock back as usual.
func TestClosed_go_redis_client_ends_every_wait_at_once_with_redis_ErrClosed(t *testing.T) {
	srv := redistest.StartServer(t)
	eachKindInParallel(t, func(t *testing.T, ctx context.Context, k contended, name string) {
		holder := redistest.Lockkit(t, srv.Client(t))
		rc := redis.NewClient(&redis.Options{Addr: srv.Addr()})
		started, trace := waitStarted()
		waiter := redistest.Lockkit(t, rc, lockkit.WithTrace(trace))
		release, err := k.hold(ctx, holder, name)
		if err != nil {
			t.Fatalf("holder: %v", err)
		}
		endsAtClose(t, startWait(ctx, t, k, waiter, name, started), rc.Close, redis.ErrClosed, "the wait")
		if err := release(ctx); err != nil {
			t.Errorf("holder's release: %v", err)
		}
	})
}

// TestClosed_go_redis_client_closes_an_election_observers_channel checks
// that an Observe whose go-redis client is closed closes its channel at
// once, as it does when its lockkit Client closes, rather than reading
// again for ever.
func TestClosed_go_redis_client_closes_an_election_observers_channel(t *testing.T) {
	srv := redistest.StartServer(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	rc := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	obs, err := election.New(redistest.Lockkit(t, rc), redistest.Unique(t)).Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l := redistest.Receive(t, obs, redistest.Hang, "the current leader"); l != (election.Leader{}) {
		t.Fatalf("leader %+v; want none", l)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		for range obs {
		}
		close(closed)
	}()
	redistest.Receive(t, closed, closedBound, "the observer's channel to close")
}

// TestClosed_go_redis_client_under_a_hold_reports_it_lost_and_Close_returns
// closes the go-redis client under a hold of every kind that the
// watchdog renews (its lockkit Client left open): the hold is reported
// lost as one the watchdog cannot renew, with its ErrNotRenewed and
// redis.ErrClosed (that it is before the lease ends is the watchdog's
// tests' business); its release returns an error rather than hanging;
// and the lockkit Client's Close, called afterwards, returns at once.
func TestClosed_go_redis_client_under_a_hold_reports_it_lost_and_Close_returns(t *testing.T) {
	srv := redistest.StartServer(t)
	const lease = 900 * time.Millisecond
	eachHoldingKind(t, func(t *testing.T, k contended) {
		ctx := redistest.Ctx(t, redistest.Hang)
		rc, lc, lost := lostReported(srv, lockkit.WithWatchdogTimeout(lease))
		release, err := k.hold(ctx, lc, redistest.Unique(t))
		if err != nil {
			t.Fatalf("hold: %v", err)
		}
		if err := rc.Close(); err != nil {
			t.Fatal(err)
		}
		info := redistest.Receive(t, lost, closedBound, "the hold to be reported lost")
		if !errors.Is(info.Err, lockkit.ErrLost) || !errors.Is(info.Err, watchdog.ErrNotRenewed) || !errors.Is(info.Err, redis.ErrClosed) {
			t.Errorf("lost with %v; want ErrLost, watchdog.ErrNotRenewed and redis.ErrClosed", info.Err)
		}
		if err := release(ctx); !errors.Is(err, redis.ErrClosed) {
			t.Errorf("release through a closed go-redis client = %v; want an error matching redis.ErrClosed", err)
		}
		closed := make(chan error, 1)
		go func() { closed <- lc.Close() }()
		if err := redistest.Receive(t, closed, closedBound, "Close to return"); err != nil {
			t.Errorf("Close = %v", err)
		}
	})
}

// TestClosed_go_redis_client_after_Close_reports_holds_lost_with_ErrClosed
// closes the lockkit Client under a hold of every kind first, and its
// go-redis client after it: the hold is reported lost with ErrClosed by
// Close, as documented, and the release afterwards frees the lock in
// Redis before the go-redis client is closed.
func TestClosed_go_redis_client_after_Close_reports_holds_lost_with_ErrClosed(t *testing.T) {
	srv := redistest.StartServer(t)
	eachHoldingKind(t, func(t *testing.T, k contended) {
		ctx := redistest.Ctx(t, redistest.Hang)
		rc, lc, lost := lostReported(srv)
		name := redistest.Unique(t)
		release, err := k.hold(ctx, lc, name)
		if err != nil {
			t.Fatalf("hold: %v", err)
		}
		if err := lc.Close(); err != nil {
			t.Fatal(err)
		}
		if info := redistest.Receive(t, lost, closedBound, "the hold to be reported lost"); !errors.Is(info.Err, lockkit.ErrClosed) {
			t.Errorf("lost with %v; want ErrClosed", info.Err)
		}
		if err := release(ctx); err != nil && !errors.Is(err, lockkit.ErrClosed) {
			t.Errorf("release after Close = %v; want nil or ErrClosed", err)
		}
		if err := rc.Close(); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{name, name + ":a", name + ":b"} {
			redistest.AssertClean(t, srv.Client(t), n)
		}
	})
}

// eachHoldingKind runs test as a parallel subtest for each of configKinds
// but the latch, which holds nothing.
func eachHoldingKind(t *testing.T, test func(t *testing.T, k contended)) {
	for _, k := range configKinds {
		if k.kind == "latch" {
			continue // holds nothing
		}
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			test(t, k)
		})
	}
}

// lostReported returns a go-redis client of srv of its own and a lockkit
// Client of it made with opts, whose Trace sends each hold reported lost
// to the channel returned (room for 2); neither is closed when the test
// ends.
func lostReported(srv *redistest.Server, opts ...lockkit.Option) (*redis.Client, *lockkit.Client, <-chan lockkit.LostInfo) {
	rc := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	lost := make(chan lockkit.LostInfo, 2)
	lc := lockkit.New(rc, append(opts, lockkit.WithTrace(&lockkit.Trace{
		Lost: func(info lockkit.LostInfo) { lost <- info },
	}))...)
	return rc, lc, lost
}
