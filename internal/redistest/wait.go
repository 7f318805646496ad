package redistest

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Hang bounds every wait of a test that must end: reaching it means the
// code hangs.
const Hang = 30 * time.Second

// LockAsync starts m.Lock(ctx) in a goroutine and returns the channel its
// result arrives on (buffered: the goroutine never blocks on it).
func LockAsync(ctx context.Context, m Locker) <-chan error {
	got := make(chan error, 1)
	go func() { got <- m.Lock(ctx) }()
	return got
}

// Ctx returns a context that ends after d, or at the latest when t's
// cleanups run. It is cancelled by a cleanup of its own rather than derived
// from t.Context, so cleanups registered after the call can still use it.
func Ctx(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// Eventually calls cond every couple of milliseconds until it reports true,
// and fails the test, naming what it waited for, if that does not happen
// within timeout. cond runs on the calling goroutine, so it may fail the
// test itself.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	Until(t, timeout, func() string {
		if cond() {
			return ""
		}
		return "waiting for " + what
	})
}

// Until calls check every couple of milliseconds until it returns "", and
// fails the test with what it returned last (what is still awaited) if
// that does not happen within timeout. check runs on the calling
// goroutine, so it may fail the test itself.
func Until(t testing.TB, timeout time.Duration, check func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		left := check()
		if left == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v %s", timeout, left)
		}
		time.Sleep(pollInterval)
	}
}

// NotYet fails the test, naming what happened too soon, if a value has
// already been sent on ch or ch is closed. It does not wait.
func NotYet[T any](t testing.TB, ch <-chan T, what string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("%s: %v", what, v)
	default:
	}
}

// Receive returns the next value sent on ch, and fails the test, naming
// what it waited for, if none arrives within timeout. A closed channel
// yields its zero value at once, so Receive also waits for a channel, such
// as a lock's lost signal, to be closed.
func Receive[T any](t testing.TB, ch <-chan T, timeout time.Duration, what string) T {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
		panic("unreachable")
	}
}

// WantDeadlines makes every one of calls at once, each with a ctx that
// ends after timeout, and fails the test unless each returns (within
// [Hang]) an error matching context.DeadlineExceeded: what every call
// must do against a server that stopped answering (see [Server.Stall] and
// [Silence]). The keys of calls name them in the failures; it returns
// their errors by the same keys, for what else a test checks of them.
func WantDeadlines(t testing.TB, timeout time.Duration, calls map[string]func(context.Context) error) map[string]error {
	t.Helper()
	chans := make(map[string]chan error, len(calls))
	for name, call := range calls {
		got := make(chan error, 1)
		chans[name] = got
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			got <- call(ctx)
		}()
	}
	errs := make(map[string]error, len(calls))
	for name, got := range chans {
		err := Receive(t, got, Hang, name+" to return")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s against a server that does not answer = %v, want DeadlineExceeded", name, err)
		}
		errs[name] = err
	}
	return errs
}
