package redistest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// This file holds what the harness's own tests share: TestMain with the
// package's children, a testing.TB that records failures, and small locks.

func TestMain(m *testing.M) {
	Main(m, Children{
		"echo":  echoChild,
		"block": blockChild,
		"panic": func([]string) { panic("boom") },
		"counting-queue": CountingChild(func(clients []redis.UniversalClient, name string) TokenLocker {
			return &queueLock{c: clients[0], name: name}
		}),
		"counting-none": CountingChild(func([]redis.UniversalClient, string) TokenLocker {
			return noLock{}
		}),
		"counting-forgetful": CountingChild(func(clients []redis.UniversalClient, name string) TokenLocker {
			return forgetfulLock{c: clients[0], key: CountRun{Name: name}.countKey()}
		}),
	})
}

// waitTimeout bounds the waits of the harness's own tests.
const waitTimeout = 10 * time.Second

// recorder is a testing.TB that records the failures a helper reports
// instead of failing the test. Fatal and FailNow end the calling goroutine,
// as they do in a real test; everything else (Cleanup, TempDir, Name, ...)
// goes to the real test it wraps.
type recorder struct {
	testing.TB

	mu     sync.Mutex
	msgs   []string
	failed bool
}

func (r *recorder) Helper() {}

func (r *recorder) Fail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) FailNow() {
	r.Fail()
	runtime.Goexit()
}

func (r *recorder) Errorf(format string, args ...any) { r.record(fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)                 { r.record(fmt.Sprint(args...)) }

func (r *recorder) Fatalf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.record(fmt.Sprint(args...))
	runtime.Goexit()
}

func (r *recorder) record(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.msgs = append(r.msgs, msg)
}

// failures runs f with a recorder wrapping t, on a goroutine of its own so
// that a Fatal ends only f, and returns the failure messages f reported,
// joined by newlines: "" if it reported none.
func failures(t *testing.T, f func(tb testing.TB)) string {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed && len(r.msgs) == 0 {
		return "failed without a message"
	}
	return strings.Join(r.msgs, "\n")
}

// wantFailure fails t unless f reports a failure that contains every one
// of parts.
func wantFailure(t *testing.T, f func(tb testing.TB), parts ...string) {
	t.Helper()
	got := failures(t, f)
	if got == "" {
		t.Fatalf("no failure reported; want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(got, p) {
			t.Fatalf("failure %q does not contain %q", got, p)
		}
	}
}

// wantNoFailure fails t if f reports a failure.
func wantNoFailure(t *testing.T, f func(tb testing.TB)) {
	t.Helper()
	if got := failures(t, f); got != "" {
		t.Fatalf("unexpected failure: %s", got)
	}
}

// queueLock is a minimal mutual exclusion for testing the harness: the
// lock is a single element in a Redis list, taken with BLPOP and given
// back with RPUSH, and every hold draws a token from INCR. newQueueLock
// puts the element in place.
type queueLock struct {
	c     redis.UniversalClient
	name  string
	token int64
}

func queueKey(name string) string { return "queue:{" + name + "}" }

// newQueueLock starts a miniredis, creates a queue lock there and returns
// a client of the server and the lock's name.
func newQueueLock(t testing.TB) (*redis.Client, string) {
	t.Helper()
	_, c := Mini(t)
	name := Unique(t)
	if err := c.RPush(Ctx(t, queryTimeout), queueKey(name), "x").Err(); err != nil {
		t.Fatal(err)
	}
	return c, name
}

func (l *queueLock) Lock(ctx context.Context) error {
	if err := l.c.BLPop(ctx, 0, queueKey(l.name)).Err(); err != nil {
		return err
	}
	tok, err := l.c.Incr(ctx, "fence:{"+l.name+"}").Result()
	l.token = tok
	return err
}

func (l *queueLock) Unlock(ctx context.Context) error {
	return l.c.RPush(ctx, queueKey(l.name), "x").Err()
}

func (l *queueLock) Token() int64 { return l.token }

// noLock excludes nobody, and its token never grows.
type noLock struct{}

func (noLock) Lock(context.Context) error   { return nil }
func (noLock) Unlock(context.Context) error { return nil }
func (noLock) Token() int64                 { return 1 }

// forgetfulLock excludes nobody and, on Unlock, deletes the counter of a
// CountRun: an increment lost for sure.
type forgetfulLock struct {
	noLock
	c   redis.UniversalClient
	key string
}

func (l forgetfulLock) Unlock(ctx context.Context) error { return l.c.Del(ctx, l.key).Err() }

// failingLock fails its n-th Lock.
type failingLock struct {
	n     int
	calls int
}

var errLockFailed = errors.New("lock failed")

func (l *failingLock) Lock(context.Context) error {
	if l.calls++; l.calls == l.n {
		return errLockFailed
	}
	return nil
}

func (l *failingLock) Unlock(context.Context) error { return nil }

// fakeLock is a NamedLocker that answers as told and records the time left
// on each call's context.
type fakeLock struct {
	err       error // returned by every call
	holds     int
	deadlines []time.Duration
}

func (f *fakeLock) Name() string                     { return "fake" }
func (f *fakeLock) Lock(ctx context.Context) error   { return f.call(ctx) }
func (f *fakeLock) Unlock(ctx context.Context) error { return f.call(ctx) }

func (f *fakeLock) HoldCount(ctx context.Context) (int, error) {
	return f.holds, f.call(ctx)
}

func (f *fakeLock) call(ctx context.Context) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		return errors.New("no deadline")
	}
	f.deadlines = append(f.deadlines, time.Until(deadline))
	return f.err
}
