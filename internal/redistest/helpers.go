package redistest

import (
	"context"
	"errors"
	"strings"
	"sync"
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
			case strings.Contains(key, "}:released:") && ttl > 0:
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
