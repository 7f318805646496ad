package fair_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// backend is a Redis the behaviour tests run against.
type backend struct {
	name   string
	client func(t *testing.T) redis.UniversalClient
}

// backends returns miniredis and a real standalone server; the real one
// skips (or fails in CI) without redis-server.
func backends() []backend {
	return []backend{
		{"miniredis", func(t *testing.T) redis.UniversalClient {
			mr, c := redistest.Mini(t)
			minis.Store(c, mr)
			t.Cleanup(func() { minis.Delete(c) })
			return c
		}},
		{"standalone", func(t *testing.T) redis.UniversalClient {
			return redistest.StartServer(t).Client(t)
		}},
	}
}

// minis maps the miniredis backends' clients to their servers.
var minis sync.Map

// miniFor returns the miniredis behind c, if c is a miniredis backend.
func miniFor(c redis.UniversalClient) (*miniredis.Miniredis, bool) {
	mr, ok := minis.Load(c)
	if !ok {
		return nil, false
	}
	return mr.(*miniredis.Miniredis), true
}

// forEachBackend runs f as a subtest on every backend.
func forEachBackend(t *testing.T, f func(t *testing.T, c redis.UniversalClient)) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			f(t, b.client(t))
		})
	}
}

// lockName returns a fresh lock name and checks, when the test ends, that
// its queue and deadline keys are gone.
func lockName(t *testing.T, c redis.UniversalClient) string {
	t.Helper()
	name := redistest.Unique(t)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n, err := c.Exists(ctx, queueKey(name), timeoutsKey(name)).Result()
		if err != nil || n != 0 {
			q, _ := c.LRange(ctx, queueKey(name), 0, -1).Result()
			z, _ := c.ZRangeWithScores(ctx, timeoutsKey(name), 0, -1).Result()
			t.Errorf("queue keys of %s left behind: EXISTS = %d, %v; queue %q, deadlines %v", name, n, err, q, z)
		}
	})
	return name
}

func lockKey(name string) string     { return "lockkit:{" + name + "}" }
func queueKey(name string) string    { return lockKey(name) + ":queue" }
func timeoutsKey(name string) string { return lockKey(name) + ":timeouts" }
func channelOf(name, owner string) string {
	return lockKey(name) + ":ch:" + owner
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func mustLock(t *testing.T, m *fair.Mutex) {
	t.Helper()
	if err := m.Lock(ctxT(t, 10*time.Second)); err != nil {
		t.Fatalf("Lock(%s): %v", m.Name(), err)
	}
}

func mustUnlock(t *testing.T, m *fair.Mutex) {
	t.Helper()
	if err := m.Unlock(ctxT(t, 10*time.Second)); err != nil {
		t.Fatalf("Unlock(%s): %v", m.Name(), err)
	}
}

func wantHoldCount(t *testing.T, m *fair.Mutex, want int) {
	t.Helper()
	got, err := m.HoldCount(ctxT(t, 5*time.Second))
	if err != nil || got != want {
		t.Fatalf("HoldCount = %d, %v; want %d", got, err, want)
	}
}

// queue returns the owner ids waiting for lock name, oldest first.
func queue(t *testing.T, c redis.UniversalClient, name string) []string {
	t.Helper()
	q, err := c.LRange(ctxT(t, 5*time.Second), queueKey(name), 0, -1).Result()
	if err != nil {
		t.Fatalf("LRANGE queue: %v", err)
	}
	return q
}

// waitQueue waits until the queue of lock name is exactly want.
func waitQueue(t *testing.T, c redis.UniversalClient, name string, want ...string) {
	t.Helper()
	var got []string
	eventually(t, 10*time.Second, fmt.Sprintf("queue %q", want), func() bool {
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
	n, err := c.ZCard(ctxT(t, 5*time.Second), timeoutsKey(name)).Result()
	if err != nil || n != int64(len(want)) {
		t.Fatalf("%d deadlines (%v) for %d queued waiters", n, err, len(want))
	}
}

// serverMillis returns the server's time in ms.
func serverMillis(t *testing.T, c redis.UniversalClient) int64 {
	t.Helper()
	now, err := c.Time(ctxT(t, 5*time.Second)).Result()
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
	ctx := ctxT(t, 5*time.Second)
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

// eventually polls cond until it holds, failing after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// countingClient returns a client of srv whose commands are counted.
func countingClient(t *testing.T, srv *redistest.Server) (*redis.Client, *redistest.Counter) {
	c := srv.Client(t)
	counter := redistest.NewCounter()
	c.AddHook(counter.Hook())
	return c, counter
}

// isAcquire reports whether cmd runs the acquire script (the only script
// whose fourth key is the fencing counter).
func isAcquire(cmd redis.Cmder) bool {
	args := cmd.Args()
	if name := strings.ToLower(cmd.Name()); (name != "evalsha" && name != "eval") || len(args) < 7 {
		return false
	}
	return fmt.Sprint(args[2]) == "4" && strings.HasSuffix(fmt.Sprint(args[6]), ":fence")
}

// faultHook injects faults into the acquire scripts of a client. When
// loseReply is armed, the next acquire runs on the server but its caller
// sees errReplyLost. When block is armed, the next acquire is not sent: it
// waits until its ctx ends and fails with ctx.Err(), and blocked is closed
// when it starts waiting.
type faultHook struct {
	loseReply atomic.Bool
	block     atomic.Bool
	blocked   chan struct{}
}

var errReplyLost = errors.New("reply lost")

func newFaultHook() *faultHook { return &faultHook{blocked: make(chan struct{})} }

func (h *faultHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *faultHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *faultHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !isAcquire(cmd) {
			return next(ctx, cmd)
		}
		if h.block.CompareAndSwap(true, false) {
			close(h.blocked)
			<-ctx.Done()
			cmd.SetErr(ctx.Err())
			return ctx.Err()
		}
		err := next(ctx, cmd)
		if err == nil && h.loseReply.CompareAndSwap(true, false) {
			cmd.SetErr(errReplyLost)
			return errReplyLost
		}
		return err
	}
}

// lockAsync starts m.Lock(ctx) and returns the channel its result arrives on.
func lockAsync(ctx context.Context, m *fair.Mutex) <-chan error {
	got := make(chan error, 1)
	go func() { got <- m.Lock(ctx) }()
	return got
}

// receive waits for a value on ch, failing after timeout.
func receive[T any](t *testing.T, ch <-chan T, timeout time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(timeout):
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
		panic("unreachable")
	}
}

// lossyUnlock loses the reply of the next release script (four keys, the
// last one the released-token set) once armed: it runs on the server, but
// the caller sees errReplyLost.
type lossyUnlock struct{ armed atomic.Bool }

func (h *lossyUnlock) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *lossyUnlock) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *lossyUnlock) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		args := cmd.Args()
		release := len(args) > 6 && strings.HasSuffix(fmt.Sprint(args[6]), ":released")
		if err == nil && release && h.armed.CompareAndSwap(true, false) {
			cmd.SetErr(errReplyLost)
			return errReplyLost
		}
		return err
	}
}

// notifyWaiters returns the goroutines of this process waiting on channel.
func notifyWaiters(c redis.UniversalClient, channel string) int {
	return notify.For(c).Waiters(channel)
}
