package redistest

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/nodes"
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
// which never expires) and the keys that remember its released tokens
// (":released:TOKEN") while they have a TTL. Every other key whose hash tag is
// {name} is reported, with its TTL, as left behind. On a cluster client it
// scans every master.
func AssertClean(t testing.TB, c redis.UniversalClient, name string) {
	t.Helper()
	if left := leftBehind(t, c, name); len(left) > 0 {
		t.Errorf("keys of %q left behind: %s", name, strings.Join(left, ", "))
	}
}

// AssertCleanWithin is [AssertClean] once what is left of lock name has
// had up to d to end with its TTL: the key naming the process a released
// lock is kept for (for 100 ms), say.
func AssertCleanWithin(t testing.TB, c redis.UniversalClient, name string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for len(leftBehind(t, c, name)) > 0 && time.Now().Before(deadline) {
		time.Sleep(pollInterval)
	}
	AssertClean(t, c, name)
}

// leftBehind returns the keys of lock name, with their TTL, that
// AssertClean reports.
func leftBehind(t testing.TB, c redis.UniversalClient, name string) []string {
	t.Helper()
	return keysBeyond(t, c, "*{"+name+"}*", func(key string, ttl time.Duration) bool {
		return strings.HasSuffix(key, ":fence") || strings.Contains(key, "}:released:") && ttl > 0
	})
}

// keysBeyond returns the keys matching pattern, on every master of c, that
// kept does not accept given their TTL (negative: none), each with its TTL.
func keysBeyond(t testing.TB, c redis.UniversalClient, pattern string, kept func(key string, ttl time.Duration) bool) []string {
	t.Helper()
	ctx := Ctx(t, cleanTimeout)
	var (
		mu   sync.Mutex // masters are scanned concurrently
		left []string
	)
	scan := func(ctx context.Context, n redis.Cmdable) error {
		iter := n.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			key := iter.Val()
			ttl, err := n.PTTL(ctx, key).Result()
			if err != nil {
				return err
			}
			if ttl == -2*time.Nanosecond || ttl == 0 || kept(key, ttl) {
				// Expired since the scan saw it, or expiring within the
				// ms (PTTL 0: a TTL, not none), or kept.
				continue
			}
			desc := key + " (no TTL)"
			if ttl > 0 {
				desc = key + " (TTL " + ttl.String() + ")"
			}
			mu.Lock()
			left = append(left, desc)
			mu.Unlock()
		}
		return iter.Err()
	}
	if err := nodes.Masters(ctx, c, scan); err != nil {
		t.Fatalf("scanning for keys %s: %v", pattern, err)
	}
	return left
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

// Closed reports whether ch is closed. It never blocks, and ch must be one
// that is only ever closed, never sent on.
func Closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// AnyClosed reports whether any of chs is closed, as the lost signal of a
// hold is once the hold is gone. It never blocks.
func AnyClosed(chs []<-chan struct{}) bool { return slices.ContainsFunc(chs, Closed) }
