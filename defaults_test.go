package lockkit_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/spin"
)

// defaultSlack is how far below a documented default a TTL read right
// after it was set may be on a loaded machine. It is well under any
// other value the default could be mistaken for (10 s for 30 s, 4 s for
// 5 s, 23 h for 24 h).
const defaultSlack = time.Second

// TestDefaults_every_kind_keeps_its_data_under_the_lockkit_prefix_for_the_documented_time
// takes a hold of every kind (a latch: its first count-down) from a
// Client made without options, and reads the TTL of the hash the README
// names, PREFIX:{NAME} with PREFIX "lockkit": a hold's lease is the
// watchdog's 30 s (DefaultWatchdogTimeout), a latch lives 24 h after its
// last count-down (latch.DefaultExpiry). A RedLock's part on its node and
// each member of a multi-lock are holds of their own, with the same lease.
func TestDefaults_every_kind_keeps_its_data_under_the_lockkit_prefix_for_the_documented_time(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	c := redistest.Lockkit(t, rc)
	ctx := redistest.Ctx(t, redistest.Hang)
	if lockkit.DefaultPrefix != "lockkit" || lockkit.DefaultWatchdogTimeout != 30*time.Second || latch.DefaultExpiry != 24*time.Hour {
		t.Fatalf("defaults %q, %v, %v; the README says lockkit, 30s, 24h",
			lockkit.DefaultPrefix, lockkit.DefaultWatchdogTimeout, latch.DefaultExpiry)
	}
	lease := lockkit.DefaultWatchdogTimeout

	for _, k := range []struct {
		kind string
		want time.Duration
		// take takes name's hold and returns what gives it back; keys
		// are the names whose hashes it writes (name itself if nil).
		take func(t *testing.T, name string) (release func() error)
		keys func(name string) []string
	}{
		{kind: "reentrant", want: lease, take: lockerHold(ctx, func(n string) lockkit.Locker { return reentrant.New(c, n) })},
		{kind: "fair", want: lease, take: lockerHold(ctx, func(n string) lockkit.Locker { return fair.New(c, n) })},
		{kind: "spin", want: lease, take: lockerHold(ctx, func(n string) lockkit.Locker { return spin.New(c, n) })},
		{kind: "rwlock write", want: lease, take: lockerHold(ctx, func(n string) lockkit.Locker { return rwlock.New(c, n) })},
		{kind: "rwlock read", want: lease, take: lockerHold(ctx, func(n string) lockkit.Locker { return rwlock.New(c, n).RLocker() })},
		{kind: "redlock", want: lease, take: lockerHold(ctx, func(n string) lockkit.Locker {
			return multilock.NewRedLock([]*lockkit.Client{c}, n)
		})},
		{kind: "multilock", want: lease, take: lockerHold(ctx, func(n string) lockkit.Locker {
			return multilock.New([]lockkit.Locker{reentrant.New(c, n+":a"), fair.New(c, n+":b")})
		}), keys: func(n string) []string { return []string{n + ":a", n + ":b"} }},
		{kind: "election", want: lease, take: func(t *testing.T, n string) func() error {
			l, err := election.New(c, n).Campaign(ctx, "leader")
			if err != nil {
				t.Fatalf("Campaign = %v", err)
			}
			return func() error { return l.Resign(ctx) }
		}},
		{kind: "semaphore", want: lease, take: func(t *testing.T, n string) func() error {
			p, err := semaphore.New(c, n, 2).Acquire(ctx, 1)
			if err != nil {
				t.Fatalf("Acquire = %v", err)
			}
			return func() error { return p.Release(ctx) }
		}},
		{kind: "latch", want: latch.DefaultExpiry, take: func(t *testing.T, n string) func() error {
			if left, err := latch.New(c, n, 2).CountDown(ctx); left != 1 || err != nil {
				t.Fatalf("CountDown = %d, %v; want 1", left, err)
			}
			return func() error { return rc.Del(ctx, "lockkit:{"+n+"}").Err() }
		}},
	} {
		t.Run(k.kind, func(t *testing.T) {
			name := redistest.Unique(t)
			keys := []string{name}
			if k.keys != nil {
				keys = k.keys(name)
			}
			release := k.take(t, name)
			for _, n := range keys {
				key := "lockkit:{" + n + "}"
				if ttl, err := rc.PTTL(ctx, key).Result(); err != nil || ttl <= k.want-defaultSlack || ttl > k.want {
					t.Errorf("PTTL %s = %v, %v; want the default %v", key, ttl, err, k.want)
				}
			}
			if err := release(); err != nil {
				t.Fatalf("release = %v", err)
			}
		})
	}
}

// lockerHold returns a take function of the table above for a Locker:
// it locks a new Locker of the name, failing the test on error, and
// returns its Unlock.
func lockerHold(ctx context.Context, newLocker func(name string) lockkit.Locker) func(t *testing.T, name string) func() error {
	return func(t *testing.T, name string) func() error {
		t.Helper()
		l := newLocker(name)
		if err := l.Lock(ctx); err != nil {
			t.Fatalf("Lock = %v", err)
		}
		return func() error { return l.Unlock(ctx) }
	}
}
