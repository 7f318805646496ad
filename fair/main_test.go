package fair_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, children) }

// backends are the kinds of Redis the behaviour tests run on.
var backends = []redistest.Backend{redistest.MiniBackend, redistest.ServerBackend}

// lockName returns a fresh lock name and checks, when the test ends, that
// Redis keeps nothing of the lock but what a freed lock keeps on purpose
// (see redistest.AssertClean): no hold, no queue entry, no deadline.
func lockName(t *testing.T, c redis.UniversalClient) string {
	t.Helper()
	name := redistest.Unique(t)
	t.Cleanup(func() { redistest.AssertClean(t, c, name) })
	return name
}

func keysOf(name string) core.Keys { return core.NewKeys(lockkit.DefaultPrefix, name) }

func lockKey(name string) string     { return keysOf(name).Base }
func queueKey(name string) string    { return keysOf(name).Sub("queue") }
func timeoutsKey(name string) string { return keysOf(name).Sub("timeouts") }

// channelOf is the own channel of waiter owner of lock name.
func channelOf(name, owner string) string {
	return keysOf(name).Sub("ch") + ":" + owner
}

// queue returns the owner ids waiting for lock name, oldest first.
func queue(t *testing.T, c redis.UniversalClient, name string) []string {
	t.Helper()
	q, err := c.LRange(redistest.Ctx(t, 5*time.Second), queueKey(name), 0, -1).Result()
	if err != nil {
		t.Fatalf("LRANGE queue: %v", err)
	}
	return q
}

// waitQueue waits until the queue of lock name is exactly want.
func waitQueue(t *testing.T, c redis.UniversalClient, name string, want ...string) {
	t.Helper()
	var got []string
	redistest.Eventually(t, 10*time.Second, fmt.Sprintf("queue %q", want), func() bool {
		got = queue(t, c, name)
		return slices.Equal(got, want)
	})
}

// wantQueue checks that the queue of lock name is exactly want, now.
func wantQueue(t *testing.T, c redis.UniversalClient, name string, want ...string) {
	t.Helper()
	if got := queue(t, c, name); !slices.Equal(got, want) {
		t.Fatalf("queue = %q, want %q", got, want)
	}
	n, err := c.ZCard(redistest.Ctx(t, 5*time.Second), timeoutsKey(name)).Result()
	if err != nil || n != int64(len(want)) {
		t.Fatalf("%d deadlines (%v) for %d queued waiters", n, err, len(want))
	}
}

// serverMillis returns the server's time in ms.
func serverMillis(t *testing.T, c redis.UniversalClient) int64 {
	t.Helper()
	now, err := c.Time(redistest.Ctx(t, 5*time.Second)).Result()
	if err != nil {
		t.Fatalf("TIME: %v", err)
	}
	return now.UnixMilli()
}

// addGhost queues owner id at the end of lock name's queue with a deadline
// d from the server's now, as a waiter that then died would have; it
// returns the deadline in server ms.
func addGhost(t *testing.T, c redis.UniversalClient, name, id string, d time.Duration) int64 {
	t.Helper()
	deadline := serverMillis(t, c) + d.Milliseconds()
	ctx := redistest.Ctx(t, 5*time.Second)
	if err := c.ZAdd(ctx, timeoutsKey(name), redis.Z{Score: float64(deadline), Member: id}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.RPush(ctx, queueKey(name), id).Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{queueKey(name), timeoutsKey(name)} {
		if err := c.PExpire(ctx, k, d).Err(); err != nil {
			t.Fatal(err)
		}
	}
	return deadline
}

// isAcquire reports whether cmd runs the acquire script.
func isAcquire(cmd redis.Cmder) bool { return fair.ScriptName(cmd) == "acquire" }

// acquireBlocker holds back the next acquire script of a client once
// armed: the script is not sent, the call waits until its ctx ends and
// fails with ctx.Err(), and blocked is closed when it starts waiting.
type acquireBlocker struct {
	armed   atomic.Bool
	blocked chan struct{}
}

func newAcquireBlocker() *acquireBlocker { return &acquireBlocker{blocked: make(chan struct{})} }

// Arm makes the hook hold back the next acquire.
func (h *acquireBlocker) Arm() { h.armed.Store(true) }

func (h *acquireBlocker) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *acquireBlocker) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *acquireBlocker) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !isAcquire(cmd) || !h.armed.CompareAndSwap(true, false) {
			return next(ctx, cmd)
		}
		close(h.blocked)
		<-ctx.Done()
		cmd.SetErr(ctx.Err())
		return ctx.Err()
	}
}

// lockAsync starts m.Lock(ctx) and returns the channel its result arrives on.
func lockAsync(ctx context.Context, m *fair.Mutex) <-chan error {
	got := make(chan error, 1)
	go func() { got <- m.Lock(ctx) }()
	return got
}
