package fair_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// backends are the kinds of Redis the behaviour tests run on.
var backends = redistest.SingleNode()

func TestMain(m *testing.M) {
	redistest.Main(m, redistest.Children{
		"waiters": childWaiters,
		"counter": redistest.CountingChild(childCounterLock),
	})
}

// childKit is the one lockkit Client of a counting child process, shared
// by its locks as a process shares one; the process exit ends it.
var childKit struct {
	once sync.Once
	lc   *lockkit.Client
}

// childCounterLock returns a fair lock of the counting child's Client.
func childCounterLock(clients []redis.UniversalClient, name string) redistest.TokenLocker {
	childKit.once.Do(func() { childKit.lc = lockkit.New(clients[0]) })
	return fair.New(childKit.lc, name)
}

// childWaiters starts a waiter for each line "join ID" it receives: a
// goroutine that locks as owner ID, appends ID to the list ORDERKEY while it
// holds the lock, unlocks and prints "done ID". It exits once its input
// ends and every waiter is done.
// Args: client spec (see redistest.ClientSpec), lock name, order key,
// waiter timeout.
func childWaiters(args []string) {
	lc, c, done := redistest.ChildLockkit(args[0])
	defer done()
	name, orderKey := args[1], args[2]
	wt, err := time.ParseDuration(args[3])
	if err != nil {
		redistest.ChildFatalf("waiter timeout: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	redistest.ChildPrintf("ready")
	var wg sync.WaitGroup
	for line := range redistest.ChildLines() {
		id, ok := strings.CutPrefix(line, "join ")
		if !ok {
			redistest.ChildFatalf("unexpected input %q", line)
		}
		m := fair.New(lc, name, lockkit.WithOwner(id), fair.WithWaiterTimeout(wt))
		wg.Go(func() {
			if err := m.Lock(ctx); err != nil {
				redistest.ChildFatalf("lock %s: %v", id, err)
			}
			if err := c.RPush(ctx, orderKey, id).Err(); err != nil {
				redistest.ChildFatalf("rpush: %v", err)
			}
			if err := m.Unlock(ctx); err != nil {
				redistest.ChildFatalf("unlock %s: %v", id, err)
			}
			redistest.ChildPrintf("done %s", id)
		})
	}
	wg.Wait()
}

// lockName returns a fresh lock name and checks, when the test ends, that
// Redis keeps nothing of the lock but what a freed lock keeps on purpose
// (see redistest.AssertClean): no hold, no queue entry, no deadline.
func lockName(t *testing.T, c redis.UniversalClient) string {
	t.Helper()
	name := redistest.Unique(t)
	t.Cleanup(func() { redistest.AssertClean(t, c, name) })
	return name
}

func keysOf(name string) core.Keys { return core.NewKeys(lockkit.DefaultPrefix, name, false) }

func lockKey(name string) string     { return keysOf(name).Base }
func waitersKey(name string) string  { return keysOf(name).Sub("waiters") }
func timeoutsKey(name string) string { return keysOf(name).Sub("timeouts") }

// channelOf is the own channel of waiter owner of lock name.
func channelOf(name, owner string) string {
	return keysOf(name).Sub("ch") + ":" + owner
}

// lockEnv is one fair lock of a test: a fresh name (see lockName), the
// go-redis client c that inspects it, and the lockkit Client lc its
// Mutexes are made from.
type lockEnv struct {
	t    *testing.T
	c    redis.UniversalClient
	lc   *lockkit.Client
	name string
}

// newLockEnv returns a lockEnv on c, whose Client has the defaults opts.
func newLockEnv(t *testing.T, c redis.UniversalClient, opts ...lockkit.Option) *lockEnv {
	t.Helper()
	return &lockEnv{t: t, c: c, lc: redistest.Lockkit(t, c, opts...), name: lockName(t, c)}
}

// eachBackend runs f with a lockEnv on each of backends.
func eachBackend(t *testing.T, f func(t *testing.T, e *lockEnv)) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) { f(t, newLockEnv(t, c)) })
}

// twoClients starts a redis-server and returns a lockEnv on it and a
// second lockkit Client of it, whose own go-redis client counts its
// commands in counter and then gets hooks.
func twoClients(t *testing.T, hooks ...redis.Hook) (e *lockEnv, lc *lockkit.Client, counter *redistest.Counter) {
	t.Helper()
	srv := redistest.StartServer(t)
	e = newLockEnv(t, srv.Client(t))
	c := srv.Client(t)
	counter = redistest.CountCommands(c)
	for _, h := range hooks {
		c.AddHook(h)
	}
	return e, redistest.Lockkit(t, c), counter
}

// wBeforeX starts a redis-server, with a lockEnv on it (see twoClients),
// and makes a holder of the lock, then w, an owner "w" of a second Client
// whose commands hook sees, waiting in Lock with ctx and wopts, asleep,
// and x, an owner "x" of the lockEnv's Client queued behind it, asleep too
// (their attempts so far answered, so that none learns of what the test
// does next); gotW and gotX get their Locks' errors.
func wBeforeX(t *testing.T, ctx context.Context, hook redis.Hook, wopts ...lockkit.Option) (e *lockEnv, holder, w, x *fair.Mutex, gotW, gotX <-chan error) {
	t.Helper()
	e, lc, counter := twoClients(t, hook)
	holder = e.held()
	w = e.on(lc).mutex(append([]lockkit.Option{lockkit.WithOwner("w")}, wopts...)...)
	gotW = redistest.LockAsync(ctx, w)
	redistest.Eventually(t, 10*time.Second, "w asleep", func() bool { return counter.Scripts() == 2 })
	counterX := redistest.CountCommands(e.c)
	x = e.mutex(lockkit.WithOwner("x"), fair.WithWaiterTimeout(time.Minute))
	gotX = redistest.LockAsync(redistest.Ctx(t, time.Minute), x)
	redistest.Eventually(t, 10*time.Second, "x asleep", func() bool { return counterX.Scripts() == 2 })
	e.waitQueue("w", "x")
	return e, holder, w, x, gotW, gotX
}

// on returns the lockEnv with lc as the Client its Mutexes are made from.
func (e lockEnv) on(lc *lockkit.Client) *lockEnv {
	e.lc = lc
	return &e
}

// mutex returns a new owner of the lock.
func (e *lockEnv) mutex(opts ...lockkit.Option) *fair.Mutex { return fair.New(e.lc, e.name, opts...) }

// held returns a new owner that holds the lock.
func (e *lockEnv) held(opts ...lockkit.Option) *fair.Mutex {
	e.t.Helper()
	m := e.mutex(opts...)
	redistest.MustLock(e.t, m)
	return m
}

// queue returns the owner ids waiting for the lock, oldest first.
func (e *lockEnv) queue() []string {
	e.t.Helper()
	q, err := fair.Queue(redistest.Ctx(e.t, 5*time.Second), e.c, e.name)
	if err != nil {
		e.t.Fatalf("reading the queue: %v", err)
	}
	return q
}

// waitQueue waits until the queue is exactly want.
func (e *lockEnv) waitQueue(want ...string) {
	e.t.Helper()
	redistest.Eventually(e.t, 10*time.Second, fmt.Sprintf("queue %q", want), func() bool {
		return slices.Equal(e.queue(), want)
	})
}

// wantQueue checks that the queue is exactly want, now, with a deadline
// for each entry.
func (e *lockEnv) wantQueue(want ...string) {
	e.t.Helper()
	if got := e.queue(); !slices.Equal(got, want) {
		e.t.Fatalf("queue = %q, want %q", got, want)
	}
	n, err := e.c.ZCard(redistest.Ctx(e.t, 5*time.Second), timeoutsKey(e.name)).Result()
	if err != nil || n != int64(len(want)) {
		e.t.Fatalf("%d deadlines (%v) for %d queued waiters", n, err, len(want))
	}
}

// wantTurn waits up to timeout for the Lock of m that reports on got,
// checks that it took the lock and left the queue exactly rest (empty
// unless given), and unlocks m.
func (e *lockEnv) wantTurn(m *fair.Mutex, got <-chan error, timeout time.Duration, what string, rest ...string) {
	e.t.Helper()
	acquired(e.t, got, timeout, what)
	e.wantQueue(rest...)
	redistest.MustUnlock(e.t, m)
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

// addGhost queues owner id at the end of the queue with a deadline d from
// the server's now, as a waiter that then died would have; it returns the
// deadline in server ms.
func (e *lockEnv) addGhost(id string, d time.Duration) int64 {
	e.t.Helper()
	deadline := serverMillis(e.t, e.c) + d.Milliseconds()
	ctx := redistest.Ctx(e.t, 5*time.Second)
	arrival := 1.0
	last, err := e.c.ZRangeWithScores(ctx, waitersKey(e.name), -1, -1).Result()
	if err != nil {
		e.t.Fatal(err)
	}
	if len(last) > 0 {
		arrival = last[0].Score + 1
	}
	if err := e.c.ZAdd(ctx, timeoutsKey(e.name), redis.Z{Score: float64(deadline), Member: id}).Err(); err != nil {
		e.t.Fatal(err)
	}
	if err := e.c.ZAdd(ctx, waitersKey(e.name), redis.Z{Score: arrival, Member: id}).Err(); err != nil {
		e.t.Fatal(err)
	}
	for _, k := range []string{waitersKey(e.name), timeoutsKey(e.name)} {
		if err := e.c.PExpire(ctx, k, d).Err(); err != nil {
			e.t.Fatal(err)
		}
	}
	return deadline
}

// wantPast checks that the server's clock has reached the deadline of a
// dead entry (in server ms) once a waiter behind it took the lock.
func (e *lockEnv) wantPast(deadline int64) {
	e.t.Helper()
	if now := serverMillis(e.t, e.c); now < deadline {
		e.t.Fatalf("acquired at server time %d, before the dead entry's deadline %d", now, deadline)
	}
}

// isAcquire reports whether cmd runs the acquire script.
func isAcquire(cmd redis.Cmder) bool { return fair.ScriptName(cmd) == "acquire" }

// acquired waits up to timeout for the Lock that reports on got and fails
// the test unless it took the lock.
func acquired(t *testing.T, got <-chan error, timeout time.Duration, what string) {
	t.Helper()
	if err := redistest.Receive(t, got, timeout, what); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// turns records the order in which waiters take the lock.
type turns struct {
	mu    sync.Mutex
	order []string
	wg    sync.WaitGroup
}

// join starts Lock on a Mutex of e with owner id ids[i] for each i in
// turn, each once the previous one is visible in the queue behind the
// entries ahead. Each waiter, once it holds the lock, records its turn and
// unlocks.
func (tr *turns) join(e *lockEnv, ahead, ids []string, opts ...lockkit.Option) {
	t := e.t
	t.Helper()
	ctx := redistest.Ctx(t, 60*time.Second)
	for i, id := range ids {
		m := e.mutex(append([]lockkit.Option{lockkit.WithOwner(id)}, opts...)...)
		tr.wg.Go(func() {
			if err := m.Lock(ctx); err != nil {
				t.Errorf("Lock(%s): %v", id, err)
				return
			}
			tr.mu.Lock()
			tr.order = append(tr.order, id)
			tr.mu.Unlock()
			if err := m.Unlock(ctx); err != nil {
				t.Errorf("Unlock(%s): %v", id, err)
			}
		})
		e.waitQueue(append(slices.Clone(ahead), ids[:i+1]...)...)
	}
}

// want waits up to timeout for every waiter that joined to be done, and
// checks that they took the lock in the order want.
func (tr *turns) want(t *testing.T, timeout time.Duration, want ...string) {
	t.Helper()
	done := make(chan struct{})
	go func() { tr.wg.Wait(); close(done) }()
	redistest.Receive(t, done, timeout, "every waiter to acquire")
	if !slices.Equal(tr.order, want) {
		t.Fatalf("acquisition order %q, want %q", tr.order, want)
	}
}

// eitherLocked waits for the first of two Locks, whose errors arrive on a
// and b, to return, and returns which (0 for a, 1 for b) and its error; it
// fails the test with the message none if neither returns within bound.
func eitherLocked(t *testing.T, a, b <-chan error, bound time.Duration, none string) (int, error) {
	t.Helper()
	select {
	case err := <-a:
		return 0, err
	case err := <-b:
		return 1, err
	case <-time.After(bound):
		t.Fatal(none)
		return 0, nil
	}
}
