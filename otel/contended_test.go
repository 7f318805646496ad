package otel_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/spin"
)

// contender is a lock taken by a holder and then, while it holds, by a
// waiter: hold and wait take it, each returning what ends its hold.
type contender struct {
	kind       []attribute.KeyValue
	hold, wait func(context.Context) (func(context.Context) error, error)
}

// lockOf returns the take function of a Lock/Unlock pair.
func lockOf(lock, unlock func(context.Context) error) func(context.Context) (func(context.Context) error, error) {
	return func(ctx context.Context) (func(context.Context) error, error) { return unlock, lock(ctx) }
}

// contenders returns one contender of every kind that waits, made from c.
func contenders(t *testing.T, c *lockkit.Client) []contender {
	name := func() string { return redistest.Unique(t) }
	exclusive := func(k string, newLock func(string) lockkit.Locker) contender {
		n := name()
		a, b := newLock(n), newLock(n)
		return contender{[]attribute.KeyValue{kind(k)}, lockOf(a.Lock, a.Unlock), lockOf(b.Lock, b.Unlock)}
	}
	rwName, semName, elName := name(), name(), name()
	rwHolder, rwReader := rwlock.New(c, rwName), rwlock.New(c, rwName)
	sem := semaphore.New(c, semName, 1)
	acquire := func(ctx context.Context) (func(context.Context) error, error) {
		p, err := sem.Acquire(ctx, 1)
		if err != nil {
			return nil, err
		}
		return p.Release, nil
	}
	campaign := func(ctx context.Context) (func(context.Context) error, error) {
		l, err := election.New(c, elName).Campaign(ctx, "v")
		if err != nil {
			return nil, err
		}
		return l.Resign, nil
	}
	return []contender{
		exclusive("reentrant", func(n string) lockkit.Locker { return reentrant.New(c, n) }),
		exclusive("spin", func(n string) lockkit.Locker { return spin.New(c, n) }),
		exclusive("fair", func(n string) lockkit.Locker { return fair.New(c, n) }),
		exclusive("redlock", func(n string) lockkit.Locker { return multilock.NewRedLock([]*lockkit.Client{c}, n) }),
		{[]attribute.KeyValue{kind("rwlock"), mode("read")}, lockOf(rwHolder.Lock, rwHolder.Unlock), lockOf(rwReader.RLock, rwReader.RUnlock)},
		{[]attribute.KeyValue{kind("semaphore")}, acquire, acquire},
		{[]attribute.KeyValue{kind("election")}, campaign, campaign},
	}
}

// TestInstrument_measures_a_contended_wait_of_every_kind makes a second
// owner wait while a first holds, for every kind that waits: while it
// waits lockkit.lock.waiting is 1, and once the holder lets go the wait
// ends as one wait.duration{outcome=acquired} and one
// acquisitions{lock.contended=true}, and waiting and held come back to 0.
func TestInstrument_measures_a_contended_wait_of_every_kind(t *testing.T) {
	eachContenderHeld(t, func(t *testing.T, ctx context.Context, k contender, reader *sdkmetric.ManualReader, release func(context.Context) error) {
		type taken struct {
			release func(context.Context) error
			err     error
		}
		got := make(chan taken, 1)
		go func() {
			r, err := k.wait(ctx)
			got <- taken{r, err}
		}()
		awaitWaiting(t, reader, k.kind)
		if err := release(ctx); err != nil {
			t.Fatal(err)
		}
		w := redistest.Receive(t, got, redistest.Hang, "the waiter to take over")
		if w.err != nil {
			t.Fatal(w.err)
		}
		if err := w.release(ctx); err != nil {
			t.Fatal(err)
		}
		m := collect(t, reader)
		wantOneWaitEnded(t, m, "acquired", k.kind...)
		if n := sum(t, m, "lockkit.lock.held", k.kind...); n != 0 {
			t.Errorf("held %d after both holds ended, want 0", n)
		}
		if n := sum(t, m, "lockkit.lock.acquisitions", append(k.kind, contended(true), reentry(false))...); n != 1 {
			t.Errorf("acquisitions{contended=true}: %d, want 1", n)
		}
	})
}

// TestInstrument_measures_a_wait_whose_ctx_ends_as_failed makes a second
// owner wait while a first holds, for every kind that waits, and ends the
// waiter's ctx: the wait ends as one wait.duration{outcome=failed},
// nothing is acquired, and lockkit.lock.waiting comes back to 0. A call
// whose ctx ended before it began waits for nothing and leaves waiting at
// 0 too.
func TestInstrument_measures_a_wait_whose_ctx_ends_as_failed(t *testing.T) {
	eachContenderHeld(t, func(t *testing.T, ctx context.Context, k contender, reader *sdkmetric.ManualReader, release func(context.Context) error) {
		ended, end := context.WithCancel(ctx)
		end()
		if _, err := k.wait(ended); !errors.Is(err, context.Canceled) {
			t.Fatalf("a call with an ended ctx: %v, want context.Canceled", err)
		}
		waitCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		got := make(chan error, 1)
		go func() {
			_, err := k.wait(waitCtx)
			got <- err
		}()
		awaitWaiting(t, reader, k.kind)
		cancel()
		redistest.WantErr(t, redistest.Receive(t, got, redistest.Hang, "the wait to end"), context.Canceled, lockkit.ErrNotObtained)
		if err := release(ctx); err != nil {
			t.Fatal(err)
		}
		m := collect(t, reader)
		wantOneWaitEnded(t, m, "failed", k.kind...)
		if has(m, "lockkit.lock.wait.duration", append(k.kind, outcome("acquired"))...) {
			t.Errorf("wait.duration{acquired} recorded for a wait that failed")
		}
		if has(m, "lockkit.lock.acquisitions", append(k.kind, contended(true), reentry(false))...) {
			t.Errorf("a contended acquisition recorded for a wait that failed")
		}
	})
}

// eachContenderHeld runs check in a subtest for every contender of an
// instrumented Client on a server of its own, once the contender's holder
// holds: check gets the subtest's ctx, reader, which reads the Client's
// metrics, and release, which ends that hold.
func eachContenderHeld(t *testing.T, check func(t *testing.T, ctx context.Context, k contender, reader *sdkmetric.ManualReader, release func(context.Context) error)) {
	s := redistest.StartServer(t)
	c, reader := instrumentedOn(t, s.Client(t))
	for _, k := range contenders(t, c) {
		t.Run(k.kind[0].Value.AsString(), func(t *testing.T) {
			ctx := redistest.Ctx(t, redistest.Hang)
			release, err := k.hold(ctx)
			if err != nil {
				t.Fatal(err)
			}
			check(t, ctx, k, reader, release)
		})
	}
}

// awaitWaiting waits until lockkit.lock.waiting counts one waiter of the
// lock with attributes kind.
func awaitWaiting(t *testing.T, reader *sdkmetric.ManualReader, kind []attribute.KeyValue) {
	t.Helper()
	redistest.Eventually(t, redistest.Hang, "the waiter to be counted", func() bool {
		m := collect(t, reader)
		return has(m, "lockkit.lock.waiting", kind...) && sum(t, m, "lockkit.lock.waiting", kind...) == 1
	})
}

// wantOneWaitEnded checks that got counts no waiter of the lock with
// attributes kind, and one wait of it that ended with outcome o.
func wantOneWaitEnded(t *testing.T, got map[string]metricdata.Metrics, o string, kind ...attribute.KeyValue) {
	t.Helper()
	if n := sum(t, got, "lockkit.lock.waiting", kind...); n != 0 {
		t.Errorf("waiting %d after the wait ended, want 0", n)
	}
	if p := hist(t, got, "lockkit.lock.wait.duration", append(slices.Clip(kind), outcome(o))...); p.Count != 1 {
		t.Errorf("wait.duration{outcome=%s}: count %d, want 1", o, p.Count)
	}
}
