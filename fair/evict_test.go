package fair_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestEviction_of_many_dead_waiters_is_cheap: 16 000 waiters queued ahead
// of a live one die at once (their deadlines pass); the next script that
// looks at the queue, a release or another owner's acquire, evicts them
// all. Redis runs one script at a time, so that script must not block it:
// the scripts run from then until the live waiter holds the lock must
// cost the server well under 200 ms in all (evicting with one scan of the
// whole queue per dead waiter took seconds).
func TestEviction_of_many_dead_waiters_is_cheap(t *testing.T) {
	const dead, budget = 16_000, 200 * time.Millisecond
	cases := []struct {
		name  string
		evict func(t *testing.T, e *lockEnv, holder *fair.Mutex) error
	}{
		{"release", func(t *testing.T, e *lockEnv, holder *fair.Mutex) error {
			return holder.Unlock(redistest.Ctx(t, 30*time.Second))
		}},
		{"acquire", func(t *testing.T, e *lockEnv, holder *fair.Mutex) error {
			ok, err := e.mutex().TryLock(redistest.Ctx(t, 30*time.Second))
			if ok {
				t.Error("TryLock took a held lock")
			}
			if err == nil {
				err = holder.Unlock(redistest.Ctx(t, 30*time.Second))
			}
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.StartServer(t)
			e := newLockEnv(t, srv.Client(t))
			holder := e.held()
			ctx := redistest.Ctx(t, time.Minute)
			ghosts := make([]string, dead)
			for i := range ghosts {
				ghosts[i] = fmt.Sprintf("ghost%05d", i)
			}
			if err := fair.JoinQueue(ctx, e.c, e.name, ghosts, time.Minute); err != nil {
				t.Fatalf("queueing the waiters to die: %v", err)
			}
			m := e.mutex(lockkit.WithOwner("w"), fair.WithWaiterTimeout(time.Minute))
			got := lockAsync(ctx, m)
			redistest.Eventually(t, 10*time.Second, "w queued", func() bool {
				return e.c.ZScore(ctx, timeoutsKey(e.name), "w").Err() == nil
			})
			if q := e.queue(); len(q) != dead+1 || q[dead] != "w" {
				t.Fatalf("queue of %d, last %q; want %d dead waiters, then w", len(q), q[len(q)-1], dead)
			}

			// The waiters die: their deadlines pass. w sleeps on (its
			// heartbeat is 20 s away, the holder's lease 30 s).
			now := serverMillis(t, e.c)
			past := make([]redis.Z, dead)
			for i, id := range ghosts {
				past[i] = redis.Z{Score: float64(now - 1), Member: id}
			}
			if n, err := e.c.ZAddXX(ctx, timeoutsKey(e.name), past...).Result(); err != nil || n != 0 {
				t.Fatalf("ZADD XX deadlines = %d, %v", n, err)
			}
			if err := e.c.ConfigResetStat(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			err := tc.evict(t, e, holder)
			if err == nil {
				acquired(t, got, 30*time.Second, "w behind the dead waiters")
			}
			spent := scriptTime(t, e.c)
			t.Logf("scripts cost the server %v", spent)
			if spent >= budget {
				t.Errorf("scripts cost the server %v, want well under %v", spent, budget)
			}
			if err != nil {
				t.Fatalf("the call that evicts: %v", err)
			}
			e.wantQueue()
			redistest.MustUnlock(t, m)
		})
	}
}

// scriptTime returns the time the server spent running scripts since its
// statistics were reset.
func scriptTime(t *testing.T, c redis.UniversalClient) time.Duration {
	t.Helper()
	info, err := c.InfoMap(redistest.Ctx(t, 30*time.Second), "commandstats").Result()
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	var total int64
	for _, cmd := range []string{"cmdstat_evalsha", "cmdstat_eval"} {
		var calls, usec int64 // stay 0 for a command never called
		fmt.Sscanf(info["Commandstats"][cmd], "calls=%d,usec=%d,", &calls, &usec)
		total += usec
	}
	return time.Duration(total) * time.Microsecond
}
