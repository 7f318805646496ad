package fair_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// cutOff is a fair lock on a redis-server of its own, held by holder, with
// waiter a (owner "a", waiter timeout wt) on a Client that talks to the
// server through proxy, and waiter b (owner "b", waiter timeout a minute:
// no heartbeat falls within a test) queued behind it on a Client that
// talks to it directly. a's go-redis client gives up on a reply or a new
// connection after 200 ms, without retrying, so that its attempts fail
// soon while the proxy is cut, and counter counts the commands it sends.
type cutOff struct {
	e          *lockEnv
	proxy      *redistest.Proxy
	counter    *redistest.Counter
	holder     *fair.Mutex
	a, b       *fair.Mutex
	gotA, gotB <-chan error
}

// proxied starts a redis-server with a lockEnv on it, and a go-redis
// client of it through a proxy, to be cut off, that gives up on a reply
// or a new connection after 200 ms, without retrying, so that its
// attempts fail soon while the proxy is cut.
func proxied(t *testing.T) (*redistest.Server, *lockEnv, *redistest.Proxy, *redis.Client) {
	t.Helper()
	srv := redistest.StartServer(t)
	e := newLockEnv(t, srv.Client(t))
	p := redistest.StartProxy(t, srv.Addr())
	rc := redis.NewClient(&redis.Options{
		Addr: p.Addr(), DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, MaxRetries: -1,
	})
	t.Cleanup(func() { _ = rc.Close() })
	return srv, e, p, rc
}

// newCutOff sets up a cutOff whose waiter a has waiter timeout wt.
func newCutOff(t *testing.T, wt time.Duration) *cutOff {
	t.Helper()
	_, e, p, rc := proxied(t)
	counter := redistest.CountCommands(rc)
	x := &cutOff{e: e, proxy: p, counter: counter, holder: e.held()}
	x.a = e.on(redistest.Lockkit(t, rc)).mutex(lockkit.WithOwner("a"), fair.WithWaiterTimeout(wt))
	x.gotA = redistest.LockAsync(redistest.Ctx(t, time.Minute), x.a)
	e.waitQueue("a")
	x.b = e.mutex(lockkit.WithOwner("b"), fair.WithWaiterTimeout(time.Minute))
	x.gotB = redistest.LockAsync(redistest.Ctx(t, time.Minute), x.b)
	e.waitQueue("a", "b")
	return x
}

// release checks that a's Lock has not returned while the lock is held,
// and then releases the holder's hold.
func (x *cutOff) release(t *testing.T) {
	t.Helper()
	redistest.NotYet(t, x.gotA, "a's Lock returned while the lock is held")
	redistest.MustUnlock(t, x.holder)
}

// TestLock_waiter_cut_off_for_less_than_its_waiter_timeout_keeps_its_place
// cuts a waiter off the server until one of its attempts has failed, and
// heals the cut well within its waiter timeout: a live waiter's entry
// never expires, so it keeps its place ahead of the waiter that joined
// after it, and its Lock, which waits out the network errors, takes the
// lock first.
func TestLock_waiter_cut_off_for_less_than_its_waiter_timeout_keeps_its_place(t *testing.T) {
	x := newCutOff(t, 6*time.Second) // a heartbeat every 2 s
	before := x.counter.Scripts()
	x.proxy.Cut()
	// A second script is sent only once the first one failed: the
	// heartbeat's attempt, then its retry (or the undo of the attempt
	// whose reply never came).
	redistest.Eventually(t, 10*time.Second, "an attempt of a to fail while cut off", func() bool {
		return x.counter.Scripts() >= before+2
	})
	x.proxy.Heal()
	x.e.wantQueue("a", "b")
	x.release(t)
	x.e.wantTurn(x.a, x.gotA, 10*time.Second, "a, cut off for a while", "b")
	x.e.wantTurn(x.b, x.gotB, 10*time.Second, "b, which joined after a")
}

// TestLock_waiter_cut_off_for_longer_than_its_waiter_timeout_queues_again_at_the_end
// cuts a waiter off the server until its entry has expired: the waiter
// behind it, which bounds its sleep by that entry's deadline, evicts it
// and moves up; once the cut heals, the waiter cut off queues again at the
// end, and takes the lock after the one that moved up.
func TestLock_waiter_cut_off_for_longer_than_its_waiter_timeout_queues_again_at_the_end(t *testing.T) {
	x := newCutOff(t, 600*time.Millisecond)
	x.proxy.Cut()
	// b's heartbeat would come after 20 s: only a's deadline wakes it.
	x.e.waitQueue("b")
	x.proxy.Heal()
	x.e.waitQueue("b", "a")
	x.release(t)
	x.e.wantTurn(x.b, x.gotB, 10*time.Second, "b, which moved up", "a")
	x.e.wantTurn(x.a, x.gotA, 10*time.Second, "a, queued again at the end")
}
