package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// querier is a lock that reports whether it is held and for how long.
type querier interface {
	IsLocked(context.Context) (bool, error)
	TTL(context.Context) (time.Duration, error)
}

// testQueries checks that IsLocked, TTL and HoldCount follow a hold, as
// seen by its owner and by another: a free lock is unlocked with no
// lease; a held one is locked, for any owner, with a lease of at most the
// watchdog timeout, and counts only for its owner.
func testQueries(t *testing.T, e *env) {
	if _, ok := e.lock("x").(querier); !ok {
		return
	}
	name := redistest.Unique(t)
	a, b := e.lock(name), e.lock(name)
	wantQueries(t, "free lock", b, false)
	redistest.MustLock(t, a)
	wantQueries(t, "held lock, seen by its owner", a, true)
	wantQueries(t, "held lock, seen by another owner", b, true)
	wantHoldCount(t, a, 1)
	wantHoldCount(t, b, 0)
	redistest.MustUnlock(t, a)
	wantQueries(t, "released lock", b, false)
	wantHoldCount(t, a, 0)
}

// wantQueries fails the test unless l reports locked and a TTL to match:
// positive and at most the default watchdog timeout when locked, 0 when
// not.
func wantQueries(t *testing.T, what string, l lockkit.Locker, locked bool) {
	t.Helper()
	q := l.(querier)
	got, err := q.IsLocked(ctx(t))
	if err != nil || got != locked {
		t.Fatalf("%s: IsLocked = %v, %v; want %v", what, got, err, locked)
	}
	ttl, err := q.TTL(ctx(t))
	switch {
	case err != nil:
		t.Fatalf("%s: TTL: %v", what, err)
	case locked && (ttl <= 0 || ttl > lockkit.DefaultWatchdogTimeout):
		t.Fatalf("%s: TTL = %v, want in (0, %v]", what, ttl, lockkit.DefaultWatchdogTimeout)
	case !locked && ttl != 0:
		t.Fatalf("%s: TTL = %v, want 0", what, ttl)
	}
}
