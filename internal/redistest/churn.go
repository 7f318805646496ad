package redistest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
)

// Churn runs many distinct lock names through the life a long-running
// service gives them, each locked a few times from two Clients of one
// server, and then checks that nothing the Clients or the server keep
// grows with the number of names (see [Churn.Run]).
type Churn struct {
	// New returns a lock value of name made from c. A kind that waits on
	// several locks (a multi-lock) names them name + "/" + anything.
	New func(c *lockkit.Client, name string) lockkit.Locker
	// Contender, when not nil, returns the lock values that contend with
	// the holders New returns (the other side of a read-write lock, say):
	// the TryLock refused, the Lock given up and the two contended Locks.
	Contender func(c *lockkit.Client, name string) lockkit.Locker
	// Lose takes the hold of name away in Redis, through rc, as a force
	// unlock by another process does. Nil: the hash PREFIX:{NAME} is
	// deleted.
	Lose func(ctx context.Context, rc *redis.Client, prefix, name string) error
	// Kept accepts the keys the kind's docs say stay in Redis once every
	// hold was given back; nil: [LockKept].
	Kept func(key string, ttl time.Duration) bool
	// LocalWaiters, when not nil, reports how many Locks wait in memory
	// for the lock that m, a value of the same Client, holds: a kind
	// whose Locks of one Client wait for each other without reporting a
	// wait (cohort mode) is so seen waiting.
	LocalWaiters func(m lockkit.Locker) int
	// Names is how many distinct names run; 0: 1000.
	Names int
	// Options are given to both Clients, after a prefix of the test's own
	// and a 2 s watchdog timeout.
	Options []lockkit.Option
}

// churnWorkers is how many names run at once, and churnDoubts how many
// of the last names of each half get an Unlock in doubt.
const (
	churnWorkers = 8
	churnDoubts  = 50
)

// The Clients of a Run, as its waitStarts tells them apart.
const (
	churnA = iota
	churnB
)

// Run starts a server and two Clients of it, A and B, and runs each name
// through these, from both Clients at once: a Lock and Unlock; a TryLock
// refused while another value holds; a Lock from each Client whose ctx
// ends while it waits; a Lock from each Client waiting for the same
// release; and, for one name in five, a hold lost (see Lose), which half
// of them Unlock (ErrLost) and half drop. Lock values are dropped, never
// closed. Then it locks the last names of the half again and gives those
// holds Unlocks whose outcome is in doubt (the server seems to stop
// answering while they wait), which are not called again. It checks,
// after each half of the names, that the Clients keep no channel,
// connection, watchdog hold or local entry, that no goroutine is left,
// that the server has no subscriber and no key but those Kept accepts,
// and that the heap did not grow by more than heapPerName a name (and the
// buffers of the connections the pools opened meanwhile) over one of the
// last two quarters of the names at least.
func (ch Churn) Run(t *testing.T) {
	t.Helper()
	names := ch.Names
	if names == 0 {
		names = 1000
	}
	if ch.Kept == nil {
		ch.Kept = LockKept
	}
	if ch.Contender == nil {
		ch.Contender = ch.New
	}
	if ch.Lose == nil {
		ch.Lose = func(ctx context.Context, rc *redis.Client, prefix, name string) error {
			return rc.Del(ctx, prefix+":{"+name+"}").Err()
		}
	}
	srv := StartServer(t)
	rc := srv.Client(t)
	prefix := Unique(t)
	stall := &Silence{Match: IsScript, Max: Hang}
	waits := newWaitStarts()
	opts := func(client int) []lockkit.Option {
		return append([]lockkit.Option{lockkit.WithPrefix(prefix), lockkit.WithWatchdogTimeout(2 * time.Second),
			lockkit.WithTrace(&lockkit.Trace{WaitStart: waits.started(client)})}, ch.Options...)
	}
	a := Lockkit(t, srv.HookedClient(t, stall), opts(churnA)...)
	b := Lockkit(t, srv.Client(t), opts(churnB)...)
	base := runtime.NumGoroutine()
	r := churnRun{Churn: ch, t: t, a: a, b: b, rc: rc, prefix: prefix, waits: waits}

	check := func() {
		t.Helper()
		Settled(t, base, a, b)
		NoSubscriptions(t, rc, prefix)
		KeysSettle(t, rc, prefix, ch.Kept)
	}
	half, quarter := names/2, names/4
	r.lives(0, half)
	r.inDoubt(half-churnDoubts, stall)
	check()
	// The heap is measured over each of the last two quarters: a leak per
	// name grows it over both, where something the runtime, go-redis or
	// a test's leftover goroutine allocates once grows it over one.
	var growths []string
	within := false
	for _, q := range [][2]int{{half, half + quarter}, {half + quarter, names}} {
		heap, conns := HeapInUse(), pooled(a, b)
		r.lives(q[0], q[1])
		r.inDoubt(q[1]-churnDoubts, stall)
		check()
		grown, n := int64(HeapInUse())-int64(heap), q[1]-q[0]
		opened := max(pooled(a, b)-conns, 0)
		growths = append(growths, fmt.Sprintf("%d bytes over %d names, with %d connections more in the pools", grown, n, opened))
		within = within || grown <= int64(n)*heapPerName+int64(opened)*connBuffers
	}
	t.Logf("the heap grew by %s", strings.Join(growths, ", then "))
	if !within {
		t.Errorf("the heap grew by %s; want, over one of them at least, at most %d bytes a name and %d a connection", strings.Join(growths, ", then "), heapPerName, connBuffers)
	}
}

// heapPerName bounds the heap's growth per name in a Churn: a coarse
// check, as the heap also holds what the runtime and go-redis keep for a
// while (the buckets of maps that grew, buffers, timers) and a GC's
// timing moves it by hundreds of KiB; the Footprint of the Clients is the
// fine one.
const heapPerName = 4 << 10

// connBuffers is what a connection of a go-redis pool takes at the most:
// its read and write buffers (32 KiB each by default), and as much again.
const connBuffers = 4 * 32 << 10

// pooled returns how many connections the pools of the go-redis clients
// of cs hold.
func pooled(cs ...*lockkit.Client) int {
	n := 0
	for _, c := range cs {
		if p, ok := c.Redis().(interface{ PoolStats() *redis.PoolStats }); ok {
			n += int(p.PoolStats().TotalConns)
		}
	}
	return n
}

// churnRun is one Run of a Churn.
type churnRun struct {
	Churn
	t      *testing.T
	a, b   *lockkit.Client
	rc     *redis.Client
	prefix string
	waits  *waitStarts
}

// lives runs the names numbered from to to (excluded), churnWorkers at
// once.
func (r churnRun) lives(from, to int) {
	r.t.Helper()
	next := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, churnWorkers)
	for range churnWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := r.life(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	func() {
		defer close(next)
		for i := from; i < to; i++ {
			select {
			case next <- i:
			case err := <-errs:
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		r.t.Fatal(err)
	}
}

// life runs name number i through its life (see Run).
func (r churnRun) life(i int) error {
	name := fmt.Sprintf("n%d", i)
	ctx, cancel := context.WithTimeout(context.Background(), Hang)
	defer cancel()
	holder := r.New(r.a, name)
	if err := holder.Lock(ctx); err != nil {
		return fmt.Errorf("%s: Lock: %w", name, err)
	}
	if ok, err := r.Contender(r.b, name).TryLock(ctx); ok || err != nil {
		return fmt.Errorf("%s: TryLock while held = %v, %v; want false, nil", name, ok, err)
	}
	if err := r.givesUp(ctx, name, holder); err != nil {
		return err
	}
	if err := r.contended(ctx, name, holder); err != nil {
		return err
	}
	if i%5 == 0 {
		return r.lose(ctx, name, i%10 == 0)
	}
	return nil
}

// givesUp starts a Lock of name from B and ends its ctx once it waits,
// then does the same from A, while holder holds.
func (r churnRun) givesUp(ctx context.Context, name string, holder lockkit.Locker) error {
	for _, client := range []int{churnB, churnA} {
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		c, wait := r.b, func() error { return r.waits.await(ctx, churnB, name) }
		if client == churnA {
			c, wait = r.a, func() error { return r.localWait(ctx, name, holder) }
		}
		got := LockAsync(wctx, r.Contender(c, name))
		if err := wait(); err != nil {
			return err
		}
		stop()
		if err := <-got; err == nil {
			return fmt.Errorf("%s: Lock whose ctx ended while it waited = nil", name)
		}
	}
	return nil
}

// contended starts a Lock of name from B and one from A, both waiting
// while holder holds, then unlocks holder and each of them in turn.
func (r churnRun) contended(ctx context.Context, name string, holder lockkit.Locker) error {
	remote, local := r.Contender(r.b, name), r.Contender(r.a, name)
	gotRemote := LockAsync(ctx, remote)
	if err := r.waits.await(ctx, churnB, name); err != nil {
		return err
	}
	gotLocal := LockAsync(ctx, local)
	if err := r.localWait(ctx, name, holder); err != nil {
		return err
	}
	if err := holder.Unlock(ctx); err != nil {
		return fmt.Errorf("%s: Unlock: %w", name, err)
	}
	for range 2 {
		var err error
		var m lockkit.Locker
		select {
		case err = <-gotRemote:
			m, gotRemote = remote, nil
		case err = <-gotLocal:
			m, gotLocal = local, nil
		}
		if err != nil {
			return fmt.Errorf("%s: contended Lock: %w", name, err)
		}
		if err := m.Unlock(ctx); err != nil {
			return fmt.Errorf("%s: Unlock after a contended Lock: %w", name, err)
		}
	}
	return nil
}

// localWait waits until a Lock of name from A waits while holder holds.
func (r churnRun) localWait(ctx context.Context, name string, holder lockkit.Locker) error {
	if r.LocalWaiters == nil {
		return r.waits.await(ctx, churnA, name)
	}
	for r.LocalWaiters(holder) == 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: waiting for a Lock to wait in memory: %w", name, ctx.Err())
		case <-time.After(pollInterval):
		}
	}
	return nil
}

// lose locks name from A, takes the hold away in Redis and waits for the
// value to learn it: by its lost signal, after which the value is dropped,
// or, with unlock or for a value without a lost signal (a multi-lock,
// whose other members are still held), by its Unlock's ErrLost.
func (r churnRun) lose(ctx context.Context, name string, unlock bool) error {
	m := r.New(r.a, name)
	if err := m.Lock(ctx); err != nil {
		return fmt.Errorf("%s: Lock: %w", name, err)
	}
	if err := r.Lose(ctx, r.rc, r.prefix, name); err != nil {
		return fmt.Errorf("%s: taking the hold away: %w", name, err)
	}
	lost, ok := m.(interface{ Lost() <-chan struct{} })
	if unlock || !ok {
		if err := m.Unlock(ctx); !errors.Is(err, lockkit.ErrLost) {
			return fmt.Errorf("%s: Unlock of a hold taken away = %v; want ErrLost", name, err)
		}
		return nil
	}
	select {
	case <-lost.Lost():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: the lost signal of a hold taken away: %w", name, ctx.Err())
	}
}

// inDoubt locks churnDoubts names from first on from A, then Unlocks them all
// while the server seems to stop answering A's scripts, each with a
// 300 ms deadline, so that every Unlock fails with its outcome in doubt,
// and lets the server answer again. The Unlocks are not called again:
// each lock settles its own in the background.
func (r churnRun) inDoubt(first int, stall *Silence) {
	r.t.Helper()
	ctx := Ctx(r.t, Hang)
	var held []lockkit.Locker
	for i := first; i < first+churnDoubts; i++ {
		m := r.New(r.a, fmt.Sprintf("n%d", i))
		if err := m.Lock(ctx); err != nil {
			r.t.Fatalf("Lock: %v", err)
		}
		held = append(held, m)
	}
	stall.On()
	defer stall.Off()
	var wg sync.WaitGroup
	failed := make(chan error, len(held))
	for _, m := range held {
		wg.Go(func() {
			short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			failed <- m.Unlock(short)
		})
	}
	wg.Wait()
	close(failed)
	for err := range failed {
		if err == nil {
			r.t.Fatal("Unlock against a server that does not answer = nil; want an error")
		}
	}
}

// waitStarts signals, by Client and lock name, the waits that the Clients'
// Traces report starting; a multi-lock's member name + "/..." counts as
// its name.
type waitStarts struct {
	mu      sync.Mutex
	signals map[waitKey]chan struct{}
}

// waitKey names the waits of one lock name on one Client (churnA or
// churnB).
type waitKey struct {
	client int
	name   string
}

func newWaitStarts() *waitStarts { return &waitStarts{signals: map[waitKey]chan struct{}{}} }

// signal returns the channel of the waits of k.
func (w *waitStarts) signal(k waitKey) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := w.signals[k]
	if ch == nil {
		ch = make(chan struct{}, 16)
		w.signals[k] = ch
	}
	return ch
}

// started returns the WaitStart hook of client's Trace.
func (w *waitStarts) started(client int) func(lockkit.WaitStartInfo) {
	return func(info lockkit.WaitStartInfo) {
		name, _, _ := strings.Cut(info.Lock.Name, "/")
		select {
		case w.signal(waitKey{client: client, name: name}) <- struct{}{}:
		default:
		}
	}
}

// await waits until a Lock of name from client reports its wait started,
// and forgets the signal, so that the harness keeps nothing for the names
// done with.
func (w *waitStarts) await(ctx context.Context, client int, name string) error {
	k := waitKey{client: client, name: name}
	select {
	case <-w.signal(k):
		w.mu.Lock()
		delete(w.signals, k)
		w.mu.Unlock()
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: waiting for a Lock to wait: %w", name, ctx.Err())
	}
}
