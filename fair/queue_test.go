package fair_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

func ids(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("w%02d", i)
	}
	return s
}

func TestLock_acquires_in_join_order(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *lockEnv) {
		holder := e.held()
		var tr turns
		want := ids(12)
		tr.join(e, nil, want)
		redistest.MustUnlock(t, holder)
		tr.want(t, 2*time.Minute, want...)
	})
}

// TestUnlock_wakes_exactly_the_next_waiter checks that each release
// publishes once, on the channel of the head of the queue, and that no
// other waiter wakes: every waiter sends exactly its two attempts before
// sleeping, one that acquires and its Unlock.
func TestUnlock_wakes_exactly_the_next_waiter(t *testing.T) {
	e, lc, counter := twoClients(t)

	// Watch every waiter channel of the lock.
	obs := e.c.PSubscribe(redistest.Ctx(t, 5*time.Second), lockKey(e.name)+":ch:*")
	t.Cleanup(func() { obs.Close() })
	if _, err := obs.Receive(redistest.Ctx(t, 5*time.Second)); err != nil {
		t.Fatalf("PSUBSCRIBE: %v", err)
	}
	published := obs.Channel()

	holder := e.held()
	const N = 6
	ctx := redistest.Ctx(t, 30*time.Second)
	took := make(chan string, N)
	proceed := make(chan struct{})
	var wg sync.WaitGroup
	for i, id := range ids(N) {
		// A long waiter timeout: no heartbeat falls within the test.
		m := e.on(lc).mutex(lockkit.WithOwner(id), fair.WithWaiterTimeout(time.Minute))
		wg.Go(func() {
			if err := m.Lock(ctx); err != nil {
				t.Errorf("Lock(%s): %v", id, err)
				return
			}
			took <- id
			<-proceed
			if err := m.Unlock(ctx); err != nil {
				t.Errorf("Unlock(%s): %v", id, err)
			}
		})
		redistest.Eventually(t, 10*time.Second, id+" asleep", func() bool { return counter.Scripts() == int64(2*(i+1)) })
		e.wantQueue(ids(N)[:i+1]...)
	}

	redistest.MustUnlock(t, holder)
	for i, id := range ids(N) {
		msg := redistest.Receive(t, published, 10*time.Second, "a wake-up for "+id)
		if msg.Channel != channelOf(e.name, id) {
			t.Fatalf("release %d published on %s, want %s", i, msg.Channel, channelOf(e.name, id))
		}
		if got := redistest.Receive(t, took, 10*time.Second, id+" to acquire"); got != id {
			t.Fatalf("%s acquired, want %s", got, id)
		}
		// Two attempts each while asleep, one to acquire for each
		// acquirer so far, and their Unlocks.
		if n := counter.Scripts(); n != int64(2*N+2*i+1) {
			t.Fatalf("after %d acquisitions waiters sent %d scripts, want %d", i+1, n, 2*N+2*i+1)
		}
		proceed <- struct{}{}
	}
	wg.Wait()
	if n := counter.Scripts(); n != 4*N {
		t.Fatalf("waiters sent %d scripts, want %d", n, 4*N)
	}
	// Nothing else was published: the next message is our own marker.
	if err := e.c.Publish(ctx, channelOf(e.name, "marker"), "x").Err(); err != nil {
		t.Fatal(err)
	}
	if msg := redistest.Receive(t, published, 10*time.Second, "the marker"); msg.Channel != channelOf(e.name, "marker") {
		t.Fatalf("unexpected message on %s", msg.Channel)
	}
}

func TestLock_cancel_middle_waiter_keeps_order(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *lockEnv) {
		holder := e.held()
		var tr turns
		tr.join(e, nil, []string{"a", "b"})

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		got := redistest.LockAsync(ctx, e.mutex(lockkit.WithOwner("x")))
		e.waitQueue("a", "b", "x")
		tr.join(e, []string{"a", "b", "x"}, []string{"d", "e"})
		cancel()
		redistest.WantErr(t, redistest.Receive(t, got, 10*time.Second, "the cancelled Lock"), lockkit.ErrNotObtained, context.Canceled)
		// Its entry is gone by the time Lock returned.
		e.wantQueue("a", "b", "d", "e")

		redistest.MustUnlock(t, holder)
		tr.want(t, 2*time.Minute, "a", "b", "d", "e")
	})
}

func TestLock_ctx_deadline_matches_both_errors_and_leaves_queue(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *lockEnv) {
		holder := e.held()
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		redistest.WantErr(t, e.mutex().Lock(ctx), lockkit.ErrNotObtained, context.DeadlineExceeded)
		e.wantQueue()
		redistest.MustUnlock(t, holder)
	})
}

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
		// Stuck until the caller gives up, or until a read timeout as
		// go-redis has (the engine waits for a reply on a context the
		// caller's does not cancel).
		t := time.NewTimer(3 * time.Second)
		defer t.Stop()
		err := context.DeadlineExceeded
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-t.C:
		}
		cmd.SetErr(err)
		return err
	}
}

// queueTwo queues w1, a Mutex of lc1 with options opts1 whose commands
// counter1 counts, then w2, a Mutex of e's Client, for the held lock; w1
// waits with ctx1. Both have a waiter timeout of a minute: no heartbeat or
// eviction falls within the test. It returns w2 and the channels both
// Locks report on.
func (e *lockEnv) queueTwo(ctx1 context.Context, lc1 *lockkit.Client, counter1 *redistest.Counter, opts1 ...lockkit.Option) (got1 <-chan error, w2 *fair.Mutex, got2 <-chan error) {
	e.t.Helper()
	got1 = redistest.LockAsync(ctx1, e.on(lc1).mutex(append(opts1, fair.WithWaiterTimeout(time.Minute))...))
	redistest.Eventually(e.t, 10*time.Second, "w1 asleep", func() bool { return counter1.Scripts() == 2 })
	w2 = e.mutex(lockkit.WithOwner("w2"), fair.WithWaiterTimeout(time.Minute))
	got2 = redistest.LockAsync(redistest.Ctx(e.t, 30*time.Second), w2)
	redistest.Eventually(e.t, 10*time.Second, "w2 queued", func() bool { return len(e.queue()) == 2 })
	return got1, w2, got2
}

// TestLock_cancel_head_of_free_lock_wakes_next: the lock is free and its
// first waiter was woken but has not taken it yet (its attempt is stuck)
// when its ctx ends; the waiter behind it must get the lock at once, not
// after the first one's entry times out.
func TestLock_cancel_head_of_free_lock_wakes_next(t *testing.T) {
	hook := newAcquireBlocker()
	e, lc1, counter1 := twoClients(t, hook)
	holder := e.held()
	ctx1, cancel1 := context.WithCancel(context.Background())
	defer cancel1()
	got1, w2, got2 := e.queueTwo(ctx1, lc1, counter1, lockkit.WithOwner("w1"))
	e.wantQueue("w1", "w2")

	hook.Arm()
	redistest.MustUnlock(t, holder)
	redistest.Receive(t, hook.blocked, 10*time.Second, "w1's attempt after its wake-up")
	if locked, _ := w2.IsLocked(redistest.Ctx(t, time.Second)); locked {
		t.Fatal("lock taken while its first waiter is stuck")
	}
	e.wantQueue("w1", "w2")

	cancel1()
	redistest.WantErr(t, redistest.Receive(t, got1, 10*time.Second, "w1's Lock"), context.Canceled)
	// w2 sleeps up to a third of its waiter timeout (20 s) unless woken.
	e.wantTurn(w2, got2, 5*time.Second, "w2 to be woken")
}

// TestLock_lost_reply_leaves_nothing_behind: an acquire that ran on the
// server but whose reply was lost must not leave a hold (or a queue entry)
// behind when Lock gives up.
func TestLock_lost_reply_leaves_nothing_behind(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *lockEnv) {
		hook := &redistest.DropReply{Match: isAcquire}
		e.c.AddHook(hook)
		m := e.mutex()

		// A fresh hold.
		hook.Arm()
		redistest.WantErr(t, m.Lock(redistest.Ctx(t, 5*time.Second)), redistest.ErrReplyDropped)
		if locked, _ := m.IsLocked(redistest.Ctx(t, time.Second)); locked || m.Token() != 0 {
			t.Fatalf("lock left held (token %d) after a Lock that failed", m.Token())
		}

		// A re-entry.
		redistest.MustLock(t, m)
		hook.Arm()
		if ok, err := m.TryLock(redistest.Ctx(t, 5*time.Second)); ok || !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("TryLock with lost reply = %v, %v; want ErrReplyDropped", ok, err)
		}
		redistest.WantHoldCount(t, m, 1)
		redistest.MustUnlock(t, m)
		redistest.WantHoldCount(t, m, 0)
		other := e.mutex()
		if ok, err := other.TryLock(redistest.Ctx(t, time.Second)); !ok || err != nil {
			t.Fatalf("TryLock by another owner = %v, %v; want the lock free", ok, err)
		}
		redistest.MustUnlock(t, other)
	})
}

// TestLock_lost_reply_hands_on: a woken waiter's acquire takes the lock but
// its reply is lost; undoing the hold must wake the next waiter.
func TestLock_lost_reply_hands_on(t *testing.T) {
	hook := &redistest.DropReply{Match: isAcquire}
	e, lc1, counter1 := twoClients(t, hook)
	holder := e.held()
	got1, w2, got2 := e.queueTwo(redistest.Ctx(t, 30*time.Second), lc1, counter1)

	hook.Arm()
	redistest.MustUnlock(t, holder)
	redistest.WantErr(t, redistest.Receive(t, got1, 10*time.Second, "w1's Lock"), redistest.ErrReplyDropped)
	e.wantTurn(w2, got2, 5*time.Second, "w2 to be woken")
}

// TestLock_waiter_keeps_its_place_while_the_lock_is_held: a waiter sleeping
// through many waiter timeouts renews its entry and keeps its place.
func TestLock_waiter_keeps_its_place_while_the_lock_is_held(t *testing.T) {
	e := newLockEnv(t, redistest.StartServer(t).Client(t))
	const waiterTimeout = time.Second
	holder := e.held()
	var tr turns
	tr.join(e, nil, []string{"a", "b"}, fair.WithWaiterTimeout(waiterTimeout))
	first, err := e.c.ZScore(redistest.Ctx(t, time.Second), timeoutsKey(e.name), "a").Result()
	if err != nil {
		t.Fatal(err)
	}
	// Until the server's clock is two waiter timeouts past a's first
	// deadline, a must stay queued first with a deadline in the future.
	seen := map[float64]bool{}
	redistest.Eventually(t, 20*time.Second, "three waiter timeouts to pass", func() bool {
		now := serverMillis(t, e.c)
		d, err := e.c.ZScore(redistest.Ctx(t, time.Second), timeoutsKey(e.name), "a").Result()
		if err != nil {
			t.Fatalf("a's entry gone: %v", err)
		}
		seen[d] = true
		return float64(now) > first+float64(2*waiterTimeout.Milliseconds())
	})
	if len(seen) < 3 {
		t.Fatalf("a's deadline took %d values over three waiter timeouts; want it renewed", len(seen))
	}
	e.wantQueue("a", "b")
	redistest.MustUnlock(t, holder)
	tr.want(t, 2*time.Minute, "a", "b")
}

// TestLock_dead_head_is_evicted_at_its_deadline: a waiter queued behind an
// entry nobody renews takes the free lock once that entry's deadline
// passes, not before, and not a heartbeat later.
func TestLock_dead_head_is_evicted_at_its_deadline(t *testing.T) {
	e := newLockEnv(t, redistest.StartServer(t).Client(t))
	deadline := e.addGhost("ghost", 500*time.Millisecond)
	m := e.mutex(lockkit.WithOwner("w"), fair.WithWaiterTimeout(time.Minute))
	// A heartbeat would come after 20 s.
	if err := m.Lock(redistest.Ctx(t, 10*time.Second)); err != nil {
		t.Fatalf("Lock behind a dead entry: %v", err)
	}
	e.wantPast(deadline)
	e.wantQueue()
	redistest.MustUnlock(t, m)
}

// TestLock_takes_over_when_the_holders_lease_ends: a holder with a fixed
// lease never unlocks, so nothing is published when its hold expires; the
// waiter first in line takes the lock once the lease has ended, not a
// heartbeat (20 s) later.
func TestLock_takes_over_when_the_holders_lease_ends(t *testing.T) {
	e := newLockEnv(t, redistest.StartServer(t).Client(t))
	const lease = time.Second
	start := serverMillis(t, e.c)
	e.held(lockkit.WithLease(lease)) // never unlocked: the lease ends on the server
	m := e.mutex(lockkit.WithOwner("w"), fair.WithWaiterTimeout(time.Minute))
	got := redistest.LockAsync(redistest.Ctx(t, 30*time.Second), m)
	// Well before the first heartbeat at 20 s.
	acquired(t, got, 10*time.Second, "the waiter after the holder's lease ended")
	e.wantPast(start + lease.Milliseconds())
	e.wantQueue()
	redistest.MustUnlock(t, m)
}

// TestUnlock_to_dead_waiter_reaches_the_next_by_its_deadline: a release
// wakes a waiter that has died (its entry not yet expired); the waiter
// behind it takes over at that entry's deadline.
func TestUnlock_to_dead_waiter_reaches_the_next_by_its_deadline(t *testing.T) {
	e := newLockEnv(t, redistest.StartServer(t).Client(t))
	holder := e.held()
	deadline := e.addGhost("ghost", 2*time.Second)
	m := e.mutex(lockkit.WithOwner("w"), fair.WithWaiterTimeout(time.Minute))
	got := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), m)
	e.waitQueue("ghost", "w")
	redistest.MustUnlock(t, holder)
	acquired(t, got, 10*time.Second, "the waiter behind the dead one")
	e.wantPast(deadline)
	e.wantQueue()
	redistest.MustUnlock(t, m)
}

// TestLock_contended_costs_two_attempts_once_warm: once a Mutex had to
// wait, it subscribes before its first attempt, so a contended acquisition
// costs two acquire scripts (join, take) and the Unlock one.
func TestLock_contended_costs_two_attempts_once_warm(t *testing.T) {
	e, lc, counter := twoClients(t)
	holder := e.mutex()
	m := e.on(lc).mutex(lockkit.WithOwner("w"), fair.WithWaiterTimeout(time.Minute))
	for round := range 3 {
		redistest.MustLock(t, holder)
		counter.Reset()
		got := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), m)
		e.waitQueue("w")
		want := int64(2)
		if round > 0 {
			want = 1
		}
		redistest.Eventually(t, 10*time.Second, "w asleep", func() bool { return counter.Scripts() == want })
		redistest.MustUnlock(t, holder)
		acquired(t, got, 10*time.Second, "w to acquire")
		redistest.MustUnlock(t, m)
		if n := counter.Scripts(); n != want+2 {
			t.Fatalf("round %d: %d scripts for a contended Lock and its Unlock, want %d", round, n, want+2)
		}
	}
	// An uncontended Lock that follows costs one acquire script, and its
	// Unlock one.
	counter.Reset()
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
	if n := counter.Scripts(); n != 2 {
		t.Fatalf("uncontended Lock and Unlock sent %d scripts, want 2", n)
	}
}

// TestLock_goroutines_sharing_a_mutex_share_its_place: goroutines waiting
// on one Mutex are one owner; when one of them takes the lock the others
// re-enter, and a cancelled one does not take the shared entry away.
func TestLock_goroutines_sharing_a_mutex_share_its_place(t *testing.T) {
	e := newLockEnv(t, redistest.StartServer(t).Client(t))
	holder := e.held()
	m := e.mutex(lockkit.WithOwner("m"), fair.WithWaiterTimeout(time.Minute))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gone := redistest.LockAsync(ctx, m)
	e.waitQueue("m")
	got := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), m)
	got2 := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), m)
	// Let the other two join m's channel before one of them gives up.
	redistest.Eventually(t, 10*time.Second, "three goroutines waiting as m", func() bool {
		return e.lc.Notifier().Waiters(channelOf(e.name, "m")) == 3
	})
	cancel()
	redistest.WantErr(t, redistest.Receive(t, gone, 10*time.Second, "the cancelled Lock"), context.Canceled)
	e.wantQueue("m")
	redistest.MustUnlock(t, holder)
	for i, ch := range []<-chan error{got, got2} {
		acquired(t, ch, 5*time.Second, fmt.Sprintf("goroutine %d of m", i))
	}
	redistest.WantHoldCount(t, m, 2)
	redistest.MustUnlock(t, m)
	redistest.MustUnlock(t, m)
	redistest.WantHoldCount(t, m, 0)
}

// TestLock_survives_pubsub_connection_kill: waiters whose PubSub connection
// breaks still get the lock in order, long before a heartbeat would have
// them look again.
func TestLock_survives_pubsub_connection_kill(t *testing.T) {
	e, lc, _ := twoClients(t)
	holder := e.held()
	var tr turns
	want := ids(8)
	// Heartbeats every 20 s: only wake-ups get the waiters through in time.
	tr.join(e.on(lc), nil, want, fair.WithWaiterTimeout(time.Minute))
	redistest.Eventually(t, 10*time.Second, "all waiters subscribed", func() bool {
		return lc.Notifier().Channels() == len(want)
	})
	killed, err := e.c.ClientKillByFilter(redistest.Ctx(t, 5*time.Second), "TYPE", "pubsub").Result()
	if err != nil || killed != 1 {
		t.Fatalf("CLIENT KILL TYPE pubsub = %d, %v; want 1 connection killed", killed, err)
	}
	redistest.MustUnlock(t, holder)
	tr.want(t, 15*time.Second, want...)
}

// TestLock_order_across_processes has 4 processes × 8 goroutines join the
// queue of a held lock one after another, and checks that they acquire in
// join order once it is released, on a standalone server and on a Cluster.
func TestLock_order_across_processes(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), testOrderAcrossProcesses)
}

func testOrderAcrossProcesses(t *testing.T, c redis.UniversalClient) {
	e := newLockEnv(t, c)
	orderKey := "order:{" + e.name + "}"
	t.Cleanup(func() { c.Del(context.Background(), orderKey) })
	const P, G = 4, 8
	holder := e.held()

	procs := make([]*redistest.Child, P)
	for i := range procs {
		procs[i] = redistest.StartChild(t, "waiters", redistest.ClientSpec(c), e.name, orderKey, fair.DefaultWaiterTimeout.String())
	}
	for _, ch := range procs {
		ch.WaitLine(t, "ready", 30*time.Second)
	}
	var joined []string
	for i := range P * G {
		id := fmt.Sprintf("p%d-g%02d", i%P, i/P)
		procs[i%P].Send(t, "join "+id)
		joined = append(joined, id)
		e.waitQueue(joined...)
	}
	redistest.MustUnlock(t, holder)
	for _, ch := range procs {
		for range G {
			ch.WaitLine(t, "done", time.Minute)
		}
		ch.CloseStdin(t)
		ch.Wait(t, 30*time.Second)
	}
	order, err := c.LRange(redistest.Ctx(t, 5*time.Second), orderKey, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, joined) {
		t.Fatalf("acquisition order\n%q\nwant join order\n%q", order, joined)
	}
}

// TestLock_after_head_waiter_process_killed: the process of the first
// waiter dies; the next waiter gets the lock once the dead one's waiter
// timeout ends, although the release went to the dead one: it bounds its
// sleep by the dead one's deadline. The wait for it is bounded by three
// waiter timeouts, so that a bound seconds late fails.
func TestLock_after_head_waiter_process_killed(t *testing.T) {
	e := newLockEnv(t, redistest.StartServer(t).Client(t))
	const waiterTimeout = 2 * time.Second
	holder := e.held()

	child := redistest.StartChild(t, "waiters", redistest.ClientSpec(e.c), e.name, e.name+":order", waiterTimeout.String())
	child.WaitLine(t, "ready", 30*time.Second)
	child.Send(t, "join dead")
	e.waitQueue("dead")
	next := e.mutex(lockkit.WithOwner("next"), fair.WithWaiterTimeout(waiterTimeout))
	got := redistest.LockAsync(redistest.Ctx(t, 30*time.Second), next)
	e.waitQueue("dead", "next")

	child.Kill(t)
	redistest.MustUnlock(t, holder) // wakes the dead waiter, which cannot take it
	e.wantTurn(next, got, 3*waiterTimeout, "the next waiter after the head waiter died")
	if n, _ := e.c.Exists(redistest.Ctx(t, time.Second), e.name+":order").Result(); n != 0 {
		t.Fatal("the killed waiter got the lock")
	}
}

// BenchmarkContended has G goroutines take turns on one lock, each holding
// it for 1 ms, with the fair and the reentrant lock in the same run. One op
// is one acquisition. Besides ns/op it reports:
//
//   - acq/s: acquisitions per second;
//   - p50-wait-ms, p99-wait-ms, max-wait-ms: time from calling Lock to
//     holding the lock;
//   - p99/turn: p99 wait over G × (hold + hand-off), one full round of the
//     queue (the fair lock's target is at most 1.2);
//   - handoff-ms: mean time per acquisition beyond the hold;
//   - jain: Jain's fairness index over the goroutines' acquisition counts
//     (1 = perfectly even);
//   - starved: goroutines that got less than half their fair share;
//   - scripts/acq and cmds/acq: scripts and all commands the client sent,
//     per acquisition (Lock and Unlock);
//   - subs/acq: SUBSCRIBE and UNSUBSCRIBE commands the server received per
//     acquisition (pub/sub commands bypass client hooks).
//
// "clients=1" is one process (all goroutines share a lockkit Client: one
// PubSub connection and one watchdog); "clients=G" gives every goroutine a
// Client and a go-redis client of its own, as if each were a process of
// its own.
func BenchmarkContended(b *testing.B) {
	const G, hold = 64, time.Millisecond
	srv := redistest.StartServer(b)
	kinds := []struct {
		name string
		make func(c *lockkit.Client, name string) lockkit.Locker
	}{
		{"fair", func(c *lockkit.Client, name string) lockkit.Locker { return fair.New(c, name) }},
		{"reentrant", func(c *lockkit.Client, name string) lockkit.Locker { return reentrant.New(c, name) }},
	}
	for _, clients := range []int{1, G} {
		for _, kind := range kinds {
			b.Run(fmt.Sprintf("clients=%d/%s", clients, kind.name), func(b *testing.B) {
				benchContended(b, srv, clients, G, hold, kind.make)
			})
		}
	}
}

func benchContended(b *testing.B, srv *redistest.Server, clients, g int, hold time.Duration, mk func(*lockkit.Client, string) lockkit.Locker) {
	b.ReportAllocs()
	counter := redistest.NewCounter()
	cs := make([]*lockkit.Client, clients)
	for i := range cs {
		rc := redis.NewClient(&redis.Options{Addr: srv.Addr()})
		rc.AddHook(counter.Hook())
		cs[i] = lockkit.New(rc)
		defer rc.Close()
		defer cs[i].Close()
	}
	admin := srv.Client(b)
	name := redistest.Unique(b)
	ctx := context.Background()
	if err := admin.ConfigResetStat(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	counter.Reset()

	var (
		budget atomic.Int64
		wg     sync.WaitGroup
		failed atomic.Bool
	)
	budget.Store(int64(b.N))
	waits := make([][]time.Duration, g)
	held := make([]time.Duration, g)
	start := make(chan struct{})
	for i := range g {
		m := mk(cs[i%clients], name)
		wg.Go(func() {
			<-start
			for budget.Add(-1) >= 0 {
				t0 := time.Now()
				if err := m.Lock(ctx); err != nil {
					b.Error(err)
					failed.Store(true)
					return
				}
				t1 := time.Now()
				waits[i] = append(waits[i], t1.Sub(t0))
				time.Sleep(hold)
				held[i] += time.Since(t1)
				if err := m.Unlock(ctx); err != nil {
					b.Error(err)
					failed.Store(true)
					return
				}
			}
		})
	}
	b.ResetTimer()
	t0 := time.Now()
	close(start)
	wg.Wait()
	elapsed := time.Since(t0)
	b.StopTimer()
	if failed.Load() {
		return
	}

	var all []time.Duration
	var totalHeld time.Duration
	counts := make([]float64, g)
	for i := range g {
		all = append(all, waits[i]...)
		counts[i] = float64(len(waits[i]))
		totalHeld += held[i]
	}
	slices.Sort(all)
	n := float64(len(all))
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(p*n))] }
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	handoff := (elapsed - totalHeld) / time.Duration(len(all))
	turn := time.Duration(g) * (totalHeld/time.Duration(len(all)) + handoff)

	b.ReportMetric(n/elapsed.Seconds(), "acq/s")
	b.ReportMetric(ms(pct(0.50)), "p50-wait-ms")
	b.ReportMetric(ms(pct(0.99)), "p99-wait-ms")
	b.ReportMetric(ms(all[len(all)-1]), "max-wait-ms")
	b.ReportMetric(float64(pct(0.99))/float64(turn), "p99/turn")
	b.ReportMetric(ms(handoff), "handoff-ms")
	b.ReportMetric(jain(counts), "jain")
	b.ReportMetric(float64(starved(counts)), "starved")
	b.ReportMetric(float64(counter.Scripts())/n, "scripts/acq")
	b.ReportMetric(float64(counter.Total())/n, "cmds/acq")
	b.ReportMetric(float64(subscribeCalls(b, admin))/n, "subs/acq")
}

// jain returns Jain's fairness index of xs: (Σx)² / (n·Σx²).
func jain(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if sq == 0 {
		return 1
	}
	return sum * sum / (float64(len(xs)) * sq)
}

// starved counts the entries of xs below half the mean.
func starved(xs []float64) int {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	share := sum / float64(len(xs))
	n := 0
	for _, x := range xs {
		if x < share/2 {
			n++
		}
	}
	return n
}

// subscribeCalls returns the SUBSCRIBE and UNSUBSCRIBE calls the server
// counted since its statistics were reset.
func subscribeCalls(b *testing.B, c *redis.Client) int64 {
	calls := redistest.CommandCalls(b, c)
	return calls["subscribe"] + calls["unsubscribe"]
}

// BenchmarkUncontended is one owner locking and unlocking a free lock.
func BenchmarkUncontended(b *testing.B) {
	c := redistest.StartServer(b).Client(b)
	counter := redistest.CountCommands(c)
	lc := redistest.Lockkit(b, c)
	for _, kind := range []struct {
		name string
		m    lockkit.Locker
	}{
		{"fair", fair.New(lc, redistest.Unique(b))},
		{"reentrant", reentrant.New(lc, redistest.Unique(b))},
	} {
		b.Run(kind.name, func(b *testing.B) {
			redistest.BenchLockUnlock(b, kind.m, counter)
		})
	}
}

// TestEviction_of_many_dead_waiters_is_cheap: 16 000 waiters queued ahead
// of a live one die at once (their deadlines pass); the next script that
// looks at the queue, a release or another owner's acquire, evicts them
// all. Redis runs one script at a time, so that script must not block it:
// the scripts run from then until the live waiter holds the lock must
// cost the server well under 500 ms in all (evicting with one scan of the
// whole queue per dead waiter took seconds).
func TestEviction_of_many_dead_waiters_is_cheap(t *testing.T) {
	const dead, budget = 16_000, 500 * time.Millisecond
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
			got := redistest.LockAsync(ctx, m)
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
