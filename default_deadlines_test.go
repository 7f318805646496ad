package lockkit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
)

// TestDefaults_a_waiters_deadline_is_5s_in_a_queue_and_a_writers_intent_lasts_30s
// makes a waiter of each kind that keeps a deadline in Redis wait,
// without options, behind a holder of another Client, and reads how far
// in the server's future its deadline lies when it appears: a fair
// waiter's and a semaphore waiter's entry in the queue's timeouts last
// the 5 s waiter timeout (fair.DefaultWaiterTimeout), a waiting writer's
// intent the 30 s watchdog timeout (lockkit.DefaultWatchdogTimeout).
func TestDefaults_a_waiters_deadline_is_5s_in_a_queue_and_a_writers_intent_lasts_30s(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	holders, waiters := redistest.Lockkit(t, srv.Client(t)), redistest.Lockkit(t, srv.Client(t))
	ctx := redistest.Ctx(t, redistest.Hang)
	if fair.DefaultWaiterTimeout != 5*time.Second {
		t.Fatalf("fair.DefaultWaiterTimeout = %v; the README says 5 s", fair.DefaultWaiterTimeout)
	}

	for _, k := range []struct {
		kind, key string
		want      time.Duration
		// hold takes name's hold through c and returns what releases it;
		// wait waits for it through c until ctx ends.
		hold func(t *testing.T, c *lockkit.Client, name string) (release func())
		wait func(ctx context.Context, c *lockkit.Client, name string) error
	}{
		{"fair", ":timeouts", fair.DefaultWaiterTimeout,
			func(t *testing.T, c *lockkit.Client, name string) func() {
				return mustHold(t, fair.New(c, name))
			},
			func(ctx context.Context, c *lockkit.Client, name string) error { return fair.New(c, name).Lock(ctx) }},
		{"semaphore", ":timeouts", fair.DefaultWaiterTimeout,
			func(t *testing.T, c *lockkit.Client, name string) func() {
				p, err := semaphore.New(c, name, 1).Acquire(ctx, 1)
				if err != nil {
					t.Fatalf("Acquire = %v", err)
				}
				return func() {
					if err := p.Release(ctx); err != nil {
						t.Errorf("Release = %v", err)
					}
				}
			},
			func(ctx context.Context, c *lockkit.Client, name string) error {
				_, err := semaphore.New(c, name, 1).Acquire(ctx, 1)
				return err
			}},
		{"rwlock intent", ":writers", lockkit.DefaultWatchdogTimeout,
			func(t *testing.T, c *lockkit.Client, name string) func() {
				return mustHold(t, rwlock.New(c, name).RLocker())
			},
			func(ctx context.Context, c *lockkit.Client, name string) error { return rwlock.New(c, name).Lock(ctx) }},
	} {
		t.Run(k.kind, func(t *testing.T) {
			name := redistest.Unique(t)
			release := k.hold(t, holders, name)
			waiting, giveUp := context.WithCancel(ctx)
			got := make(chan error, 1)
			go func() { got <- k.wait(waiting, waiters, name) }()

			key := "lockkit:{" + name + "}" + k.key
			var left time.Duration
			redistest.Eventually(t, redistest.Hang, "the waiter's deadline", func() bool {
				var ok bool
				left, ok = deadlineLeft(t, rc, key)
				return ok
			})
			t.Logf("%s: deadline %v away", key, left)
			if left <= k.want-defaultSlack || left > k.want {
				t.Errorf("%s: the waiter's deadline is %v away, want the default %v", key, left, k.want)
			}
			giveUp()
			if err := redistest.Receive(t, got, redistest.Hang, "the waiter to give up"); err == nil {
				t.Error("the waiter got the lock while it was held")
			}
			release()
		})
	}
}

// deadlineLeft reads the one deadline (a score in ms of the server's
// clock) in the sorted set key, the members starting with ':' aside, and
// returns how far it lies in the server's future; ok is false while the
// set has no such member.
func deadlineLeft(t *testing.T, rc redis.UniversalClient, key string) (left time.Duration, ok bool) {
	t.Helper()
	ctx := redistest.Ctx(t, redistest.Hang)
	entries, err := rc.ZRangeWithScores(ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	now, err := rc.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Member.(string), ":") {
			if ok {
				t.Fatalf("%s: several deadlines %v, want one", key, entries)
			}
			left, ok = time.UnixMilli(int64(e.Score)).Sub(now), true
		}
	}
	return left, ok
}

// mustHold locks l, failing the test on error, and returns what unlocks
// it, reporting an error of the Unlock.
func mustHold(t *testing.T, l lockkit.Locker) (unlock func()) {
	t.Helper()
	ctx := redistest.Ctx(t, redistest.Hang)
	if err := l.Lock(ctx); err != nil {
		t.Fatalf("Lock = %v", err)
	}
	return func() {
		if err := l.Unlock(ctx); err != nil {
			t.Errorf("Unlock = %v", err)
		}
	}
}
