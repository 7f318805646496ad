package redistest

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/nodes"
)

// Generous bounds on the calls the helpers make: reaching one means the
// lock or the server hangs.
const (
	lockTimeout  = 10 * time.Second // MustLock and MustUnlock
	queryTimeout = 5 * time.Second  // WantHoldCount and the harness's own queries
	cleanTimeout = 10 * time.Second // AssertClean's scan
	pollInterval = 2 * time.Millisecond
	// maxUniquePrefix caps the part of a Unique name taken from the test
	// name.
	maxUniquePrefix = 64
)

// Locker is what the helpers of this package need of a lock. Every lock of
// the module is one, and so is the read side of a read-write lock seen
// through its RLocker.
type Locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

// NamedLocker is a [Locker] that reports its lock's name, for failure
// messages.
type NamedLocker interface {
	Locker
	Name() string
}

// TokenLocker is a [Locker] whose holds carry a fencing token: a number
// that grows with every new hold of the lock and is 0 while it holds
// nothing.
type TokenLocker interface {
	Locker
	Token() int64
}

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
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(pollInterval)
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

// uniqueSeq numbers the names handed out by Unique. It is process-wide
// because process-wide uniqueness is what Unique promises.
var uniqueSeq atomic.Uint64

// Unique returns a lock name that is unique within the process: the test's
// name, with every character other than ASCII letters, digits, '-', '_' and
// '.' replaced by '_', followed by '-' and a process-wide sequence number.
// Tests that share a server can use it to never collide. The name contains
// no braces, so it never forms a cluster hash tag by itself.
func Unique(t testing.TB) string {
	t.Helper()
	prefix := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		default:
			return '_'
		}
	}, t.Name())
	if len(prefix) > maxUniquePrefix {
		prefix = prefix[:maxUniquePrefix]
	}
	return prefix + "-" + strconv.FormatUint(uniqueSeq.Add(1), 10)
}

// MustLock locks m and fails the test if Lock fails or takes longer than
// 10 s.
func MustLock(t testing.TB, m NamedLocker) {
	t.Helper()
	if err := m.Lock(Ctx(t, lockTimeout)); err != nil {
		t.Fatalf("Lock(%s): %v", m.Name(), err)
	}
}

// MustUnlock unlocks m and fails the test if Unlock fails or takes longer
// than 10 s.
func MustUnlock(t testing.TB, m NamedLocker) {
	t.Helper()
	if err := m.Unlock(Ctx(t, lockTimeout)); err != nil {
		t.Fatalf("Unlock(%s): %v", m.Name(), err)
	}
}

// WantHoldCount fails the test unless m's HoldCount reports want holds
// within 5 s.
func WantHoldCount(t testing.TB, m interface {
	HoldCount(context.Context) (int, error)
}, want int) {
	t.Helper()
	got, err := m.HoldCount(Ctx(t, queryTimeout))
	if err != nil || got != want {
		t.Fatalf("HoldCount = %d, %v; want %d", got, err, want)
	}
}

// WantErr fails the test unless err is an error that matches every one of
// targets by errors.Is.
func WantErr(t testing.TB, err error, targets ...error) {
	t.Helper()
	if err == nil {
		t.Fatalf("got nil error, want one matching %v", targets)
	}
	for _, target := range targets {
		if !errors.Is(err, target) {
			t.Fatalf("error %q does not match %q", err, target)
		}
	}
}

// AssertClean checks that Redis keeps nothing of lock name but what a freed
// lock keeps on purpose: its fencing counter (the key ending in ":fence",
// which never expires) and its set of released tokens (ending in
// ":released") while it has a TTL. Every other key whose hash tag is
// {name} is reported, with its TTL, as left behind. On a cluster client it
// scans every master.
func AssertClean(t testing.TB, c redis.UniversalClient, name string) {
	t.Helper()
	ctx := Ctx(t, cleanTimeout)
	var (
		mu   sync.Mutex // masters are scanned concurrently
		left []string
	)
	scan := func(ctx context.Context, n redis.Cmdable) error {
		iter := n.Scan(ctx, 0, "*{"+name+"}*", 100).Iterator()
		for iter.Next(ctx) {
			key := iter.Val()
			ttl, err := n.PTTL(ctx, key).Result()
			if err != nil {
				return err
			}
			switch {
			case strings.HasSuffix(key, ":fence"):
			case strings.HasSuffix(key, ":released") && ttl > 0:
			default:
				desc := key + " (no TTL)"
				if ttl > 0 {
					desc = key + " (TTL " + ttl.String() + ")"
				}
				mu.Lock()
				left = append(left, desc)
				mu.Unlock()
			}
		}
		return iter.Err()
	}
	if err := nodes.Masters(ctx, c, scan); err != nil {
		t.Fatalf("scanning for keys of %q: %v", name, err)
	}
	if len(left) > 0 {
		t.Errorf("keys of %q left behind: %s", name, strings.Join(left, ", "))
	}
}

// ErrOverlap is the error [Hammer] returns when two of its lockers held
// their locks at the same time.
var ErrOverlap = errors.New("redistest: two holders inside the critical section at once")

// Hammer checks mutual exclusion within one process: it runs a goroutine
// per locker that takes its lock rounds times, and at every hold checks
// that no other goroutine is inside the critical section. It returns once
// every goroutine has stopped, with the number of holds taken in all and
// the first error: a failed Lock or Unlock, or [ErrOverlap]. A goroutine
// stops at its first error, releasing what it holds. ctx bounds every Lock
// and Unlock. [CountRun] does the same across processes.
func Hammer(ctx context.Context, lockers []Locker, rounds int) (holds int, err error) {
	var (
		// Atomics, because the race detector cannot see the ordering
		// that a lock establishes through Redis.
		inside atomic.Int32
		total  atomic.Int64
		wg     sync.WaitGroup
	)
	errs := make(chan error, len(lockers))
	for _, l := range lockers {
		wg.Go(func() {
			for range rounds {
				if err := l.Lock(ctx); err != nil {
					errs <- err
					return
				}
				overlap := inside.Add(1) != 1
				total.Add(1)
				runtime.Gosched() // give another holder the chance to show up
				inside.Add(-1)
				err := l.Unlock(ctx)
				if overlap {
					err = ErrOverlap
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return int(total.Load()), <-errs
}
