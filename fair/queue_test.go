package fair_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// joinInOrder starts Lock on a Mutex with owner id ids[i] for each i in
// turn, each once the previous one is visible in the queue behind the
// entries ahead. Each waiter, once it holds the lock, appends its id to
// *order and unlocks. It returns a function that waits for all of them.
func joinInOrder(t *testing.T, lc *lockkit.Client, name string, ahead, ids []string, mu *sync.Mutex, order *[]string, opts ...lockkit.Option) func() {
	t.Helper()
	ctx := redistest.Ctx(t, 60*time.Second)
	var wg sync.WaitGroup
	for i, id := range ids {
		m := fair.New(lc, name, append([]lockkit.Option{lockkit.WithOwner(id)}, opts...)...)
		wg.Go(func() {
			if err := m.Lock(ctx); err != nil {
				t.Errorf("Lock(%s): %v", id, err)
				return
			}
			mu.Lock()
			*order = append(*order, id)
			mu.Unlock()
			if err := m.Unlock(ctx); err != nil {
				t.Errorf("Unlock(%s): %v", id, err)
			}
		})
		waitQueue(t, lc.Redis(), name, append(slices.Clone(ahead), ids[:i+1]...)...)
	}
	return wg.Wait
}

func ids(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("w%02d", i)
	}
	return s
}

func TestLock_acquires_in_join_order(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := lockName(t, c)
		holder := fair.New(lc, name)
		redistest.MustLock(t, holder)
		var (
			mu    sync.Mutex
			order []string
		)
		want := ids(12)
		wait := joinInOrder(t, lc, name, nil, want, &mu, &order)
		redistest.MustUnlock(t, holder)
		wait()
		if !slices.Equal(order, want) {
			t.Fatalf("acquisition order %q, want join order %q", order, want)
		}
	})
}

// TestUnlock_wakes_exactly_the_next_waiter checks that each release
// publishes once, on the channel of the head of the queue, and that no
// other waiter wakes: every waiter sends exactly its two attempts before
// sleeping, one that acquires and its Unlock.
func TestUnlock_wakes_exactly_the_next_waiter(t *testing.T) {
	srv := redistest.StartServer(t)
	hc := srv.Client(t)
	hlc := redistest.Lockkit(t, hc)
	c := srv.Client(t)
	lc := redistest.Lockkit(t, c)
	counter := redistest.CountCommands(c)
	name := lockName(t, hc)

	// Watch every waiter channel of the lock.
	obs := srv.Client(t).PSubscribe(redistest.Ctx(t, 5*time.Second), lockKey(name)+":ch:*")
	t.Cleanup(func() { obs.Close() })
	if _, err := obs.Receive(redistest.Ctx(t, 5*time.Second)); err != nil {
		t.Fatalf("PSUBSCRIBE: %v", err)
	}
	published := obs.Channel()

	holder := fair.New(hlc, name)
	redistest.MustLock(t, holder)
	const N = 6
	ctx := redistest.Ctx(t, 30*time.Second)
	acquired := make(chan string, N)
	proceed := make(chan struct{})
	var wg sync.WaitGroup
	for i, id := range ids(N) {
		// A long waiter timeout: no heartbeat falls within the test.
		m := fair.New(lc, name, lockkit.WithOwner(id), fair.WithWaiterTimeout(time.Minute))
		wg.Go(func() {
			if err := m.Lock(ctx); err != nil {
				t.Errorf("Lock(%s): %v", id, err)
				return
			}
			acquired <- id
			<-proceed
			if err := m.Unlock(ctx); err != nil {
				t.Errorf("Unlock(%s): %v", id, err)
			}
		})
		redistest.Eventually(t, 10*time.Second, id+" asleep", func() bool { return counter.Scripts() == int64(2*(i+1)) })
		wantQueue(t, hc, name, ids(N)[:i+1]...)
	}

	redistest.MustUnlock(t, holder)
	for i, id := range ids(N) {
		msg := redistest.Receive(t, published, 10*time.Second, "a wake-up for "+id)
		if msg.Channel != channelOf(name, id) {
			t.Fatalf("release %d published on %s, want %s", i, msg.Channel, channelOf(name, id))
		}
		if got := redistest.Receive(t, acquired, 10*time.Second, id+" to acquire"); got != id {
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
	if err := hc.Publish(ctx, channelOf(name, "marker"), "x").Err(); err != nil {
		t.Fatal(err)
	}
	if msg := redistest.Receive(t, published, 10*time.Second, "the marker"); msg.Channel != channelOf(name, "marker") {
		t.Fatalf("unexpected message on %s", msg.Channel)
	}
}

func TestLock_cancel_middle_waiter_keeps_order(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := lockName(t, c)
		holder := fair.New(lc, name)
		redistest.MustLock(t, holder)
		var (
			mu    sync.Mutex
			order []string
		)
		wait := joinInOrder(t, lc, name, nil, []string{"a", "b"}, &mu, &order)

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		got := lockAsync(ctx, fair.New(lc, name, lockkit.WithOwner("x")))
		waitQueue(t, c, name, "a", "b", "x")
		wait2 := joinInOrder(t, lc, name, []string{"a", "b", "x"}, []string{"d", "e"}, &mu, &order)
		cancel()
		err := redistest.Receive(t, got, 10*time.Second, "the cancelled Lock")
		if !errors.Is(err, lockkit.ErrNotObtained) || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Lock = %v; want ErrNotObtained and Canceled", err)
		}
		// Its entry is gone by the time Lock returned.
		wantQueue(t, c, name, "a", "b", "d", "e")

		redistest.MustUnlock(t, holder)
		wait()
		wait2()
		if want := []string{"a", "b", "d", "e"}; !slices.Equal(order, want) {
			t.Fatalf("acquisition order %q, want %q", order, want)
		}
	})
}

func TestLock_ctx_deadline_matches_both_errors_and_leaves_queue(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		name := lockName(t, c)
		holder := fair.New(lc, name)
		redistest.MustLock(t, holder)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		err := fair.New(lc, name).Lock(ctx)
		if !errors.Is(err, lockkit.ErrNotObtained) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Lock past deadline = %v; want ErrNotObtained and DeadlineExceeded", err)
		}
		wantQueue(t, c, name)
		redistest.MustUnlock(t, holder)
	})
}

// TestLock_cancel_head_of_free_lock_wakes_next: the lock is free and its
// first waiter was woken but has not taken it yet (its attempt is stuck)
// when its ctx ends; the waiter behind it must get the lock at once, not
// after the first one's entry times out.
func TestLock_cancel_head_of_free_lock_wakes_next(t *testing.T) {
	srv := redistest.StartServer(t)
	hc := srv.Client(t)
	hlc := redistest.Lockkit(t, hc)
	c1 := srv.Client(t)
	lc1 := redistest.Lockkit(t, c1)
	counter1 := redistest.CountCommands(c1)
	hook := newAcquireBlocker()
	c1.AddHook(hook)
	name := lockName(t, hc)
	const waiterTimeout = time.Minute // no heartbeat or eviction in the test

	holder := fair.New(hlc, name)
	redistest.MustLock(t, holder)
	ctx1, cancel1 := context.WithCancel(context.Background())
	defer cancel1()
	got1 := lockAsync(ctx1, fair.New(lc1, name, lockkit.WithOwner("w1"), fair.WithWaiterTimeout(waiterTimeout)))
	redistest.Eventually(t, 10*time.Second, "w1 asleep", func() bool { return counter1.Scripts() == 2 })
	w2 := fair.New(hlc, name, lockkit.WithOwner("w2"), fair.WithWaiterTimeout(waiterTimeout))
	got2 := lockAsync(redistest.Ctx(t, 30*time.Second), w2)
	waitQueue(t, hc, name, "w1", "w2")

	hook.Arm()
	redistest.MustUnlock(t, holder)
	redistest.Receive(t, hook.blocked, 10*time.Second, "w1's attempt after its wake-up")
	if locked, _ := w2.IsLocked(redistest.Ctx(t, time.Second)); locked {
		t.Fatal("lock taken while its first waiter is stuck")
	}
	wantQueue(t, hc, name, "w1", "w2")

	cancel1()
	if err := redistest.Receive(t, got1, 10*time.Second, "w1's Lock"); !errors.Is(err, context.Canceled) {
		t.Fatalf("w1 Lock = %v, want Canceled", err)
	}
	// w2 sleeps up to a third of its waiter timeout (20 s) unless woken.
	if err := redistest.Receive(t, got2, 5*time.Second, "w2 to be woken"); err != nil {
		t.Fatalf("w2 Lock: %v", err)
	}
	wantQueue(t, hc, name)
	redistest.MustUnlock(t, w2)
}

// TestLock_lost_reply_leaves_nothing_behind: an acquire that ran on the
// server but whose reply was lost must not leave a hold (or a queue entry)
// behind when Lock gives up.
func TestLock_lost_reply_leaves_nothing_behind(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		hook := &redistest.DropReply{Match: isAcquire}
		c.AddHook(hook)
		name := lockName(t, c)
		m := fair.New(lc, name)

		// A fresh hold.
		hook.Arm()
		if err := m.Lock(redistest.Ctx(t, 5*time.Second)); !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("Lock with lost reply = %v, want ErrReplyDropped", err)
		}
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
		other := fair.New(lc, name)
		if ok, err := other.TryLock(redistest.Ctx(t, time.Second)); !ok || err != nil {
			t.Fatalf("TryLock by another owner = %v, %v; want the lock free", ok, err)
		}
		redistest.MustUnlock(t, other)
	})
}

// TestLock_lost_reply_hands_on: a woken waiter's acquire takes the lock but
// its reply is lost; undoing the hold must wake the next waiter.
func TestLock_lost_reply_hands_on(t *testing.T) {
	srv := redistest.StartServer(t)
	hc := srv.Client(t)
	hlc := redistest.Lockkit(t, hc)
	c1 := srv.Client(t)
	lc1 := redistest.Lockkit(t, c1)
	counter1 := redistest.CountCommands(c1)
	hook := &redistest.DropReply{Match: isAcquire}
	c1.AddHook(hook)
	name := lockName(t, hc)
	const waiterTimeout = time.Minute

	holder := fair.New(hlc, name)
	redistest.MustLock(t, holder)
	w1 := fair.New(lc1, name, fair.WithWaiterTimeout(waiterTimeout))
	got1 := lockAsync(redistest.Ctx(t, 30*time.Second), w1)
	redistest.Eventually(t, 10*time.Second, "w1 asleep", func() bool { return counter1.Scripts() == 2 })
	w2 := fair.New(hlc, name, lockkit.WithOwner("w2"), fair.WithWaiterTimeout(waiterTimeout))
	got2 := lockAsync(redistest.Ctx(t, 30*time.Second), w2)
	redistest.Eventually(t, 10*time.Second, "w2 queued", func() bool { return len(queue(t, hc, name)) == 2 })

	hook.Arm()
	redistest.MustUnlock(t, holder)
	if err := redistest.Receive(t, got1, 10*time.Second, "w1's Lock"); !errors.Is(err, redistest.ErrReplyDropped) {
		t.Fatalf("w1 Lock = %v, want ErrReplyDropped", err)
	}
	if err := redistest.Receive(t, got2, 5*time.Second, "w2 to be woken"); err != nil {
		t.Fatalf("w2 Lock: %v", err)
	}
	wantQueue(t, hc, name)
	redistest.MustUnlock(t, w2)
}

// TestLock_waiter_keeps_its_place_while_the_lock_is_held: a waiter sleeping
// through many waiter timeouts renews its entry and keeps its place.
func TestLock_waiter_keeps_its_place_while_the_lock_is_held(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	lc := redistest.Lockkit(t, c)
	name := lockName(t, c)
	const waiterTimeout = time.Second
	holder := fair.New(lc, name)
	redistest.MustLock(t, holder)
	var (
		mu    sync.Mutex
		order []string
	)
	wait := joinInOrder(t, lc, name, nil, []string{"a", "b"}, &mu, &order, fair.WithWaiterTimeout(waiterTimeout))
	first, err := c.ZScore(redistest.Ctx(t, time.Second), timeoutsKey(name), "a").Result()
	if err != nil {
		t.Fatal(err)
	}
	// Until the server's clock is two waiter timeouts past a's first
	// deadline, a must stay queued first with a deadline in the future.
	seen := map[float64]bool{}
	redistest.Eventually(t, 20*time.Second, "three waiter timeouts to pass", func() bool {
		now := serverMillis(t, c)
		d, err := c.ZScore(redistest.Ctx(t, time.Second), timeoutsKey(name), "a").Result()
		if err != nil {
			t.Fatalf("a's entry gone: %v", err)
		}
		seen[d] = true
		return float64(now) > first+float64(2*waiterTimeout.Milliseconds())
	})
	if len(seen) < 3 {
		t.Fatalf("a's deadline took %d values over three waiter timeouts; want it renewed", len(seen))
	}
	wantQueue(t, c, name, "a", "b")
	redistest.MustUnlock(t, holder)
	wait()
	if want := []string{"a", "b"}; !slices.Equal(order, want) {
		t.Fatalf("acquisition order %q, want %q", order, want)
	}
}

// TestLock_dead_head_is_evicted_at_its_deadline: a waiter queued behind an
// entry nobody renews takes the free lock once that entry's deadline
// passes, not before, and not a heartbeat later.
func TestLock_dead_head_is_evicted_at_its_deadline(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	lc := redistest.Lockkit(t, c)
	name := lockName(t, c)
	deadline := addGhost(t, c, name, "ghost", 500*time.Millisecond)
	m := fair.New(lc, name, lockkit.WithOwner("w"), fair.WithWaiterTimeout(time.Minute))
	// A heartbeat would come after 20 s.
	if err := m.Lock(redistest.Ctx(t, 10*time.Second)); err != nil {
		t.Fatalf("Lock behind a dead entry: %v", err)
	}
	if now := serverMillis(t, c); now < deadline {
		t.Fatalf("acquired at server time %d, before the dead entry's deadline %d", now, deadline)
	}
	wantQueue(t, c, name)
	redistest.MustUnlock(t, m)
}

// TestUnlock_to_dead_waiter_reaches_the_next_by_its_deadline: a release
// wakes a waiter that has died (its entry not yet expired); the waiter
// behind it takes over at that entry's deadline.
func TestUnlock_to_dead_waiter_reaches_the_next_by_its_deadline(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	lc := redistest.Lockkit(t, c)
	name := lockName(t, c)
	holder := fair.New(lc, name)
	redistest.MustLock(t, holder)
	deadline := addGhost(t, c, name, "ghost", 2*time.Second)
	m := fair.New(lc, name, lockkit.WithOwner("w"), fair.WithWaiterTimeout(time.Minute))
	got := lockAsync(redistest.Ctx(t, 20*time.Second), m)
	waitQueue(t, c, name, "ghost", "w")
	redistest.MustUnlock(t, holder)
	if err := redistest.Receive(t, got, 10*time.Second, "the waiter behind the dead one"); err != nil {
		t.Fatalf("Lock: %v", err)
	}
	if now := serverMillis(t, c); now < deadline {
		t.Fatalf("acquired at server time %d, before the dead entry's deadline %d", now, deadline)
	}
	wantQueue(t, c, name)
	redistest.MustUnlock(t, m)
}

// TestLock_contended_costs_two_attempts_once_warm: once a Mutex had to
// wait, it subscribes before its first attempt, so a contended acquisition
// costs two acquire scripts (join, take) and the Unlock one.
func TestLock_contended_costs_two_attempts_once_warm(t *testing.T) {
	srv := redistest.StartServer(t)
	hc := srv.Client(t)
	hlc := redistest.Lockkit(t, hc)
	c := srv.Client(t)
	lc := redistest.Lockkit(t, c)
	counter := redistest.CountCommands(c)
	name := lockName(t, hc)
	holder := fair.New(hlc, name)
	m := fair.New(lc, name, lockkit.WithOwner("w"), fair.WithWaiterTimeout(time.Minute))
	for round := range 3 {
		redistest.MustLock(t, holder)
		counter.Reset()
		got := lockAsync(redistest.Ctx(t, 20*time.Second), m)
		waitQueue(t, hc, name, "w")
		want := int64(2)
		if round > 0 {
			want = 1
		}
		redistest.Eventually(t, 10*time.Second, "w asleep", func() bool { return counter.Scripts() == want })
		redistest.MustUnlock(t, holder)
		if err := redistest.Receive(t, got, 10*time.Second, "w to acquire"); err != nil {
			t.Fatal(err)
		}
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
	c := redistest.StartServer(t).Client(t)
	lc := redistest.Lockkit(t, c)
	name := lockName(t, c)
	holder := fair.New(lc, name)
	redistest.MustLock(t, holder)
	m := fair.New(lc, name, lockkit.WithOwner("m"), fair.WithWaiterTimeout(time.Minute))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gone := lockAsync(ctx, m)
	waitQueue(t, c, name, "m")
	got := lockAsync(redistest.Ctx(t, 20*time.Second), m)
	got2 := lockAsync(redistest.Ctx(t, 20*time.Second), m)
	// Let the other two join m's channel before one of them gives up.
	redistest.Eventually(t, 10*time.Second, "three goroutines waiting as m", func() bool {
		return lc.Notifier().Waiters(channelOf(name, "m")) == 3
	})
	cancel()
	if err := redistest.Receive(t, gone, 10*time.Second, "the cancelled Lock"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Lock = %v", err)
	}
	wantQueue(t, c, name, "m")
	redistest.MustUnlock(t, holder)
	for i, ch := range []<-chan error{got, got2} {
		if err := redistest.Receive(t, ch, 5*time.Second, "the goroutines of m"); err != nil {
			t.Fatalf("goroutine %d: %v", i, err)
		}
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
	srv := redistest.StartServer(t)
	hc, c := srv.Client(t), srv.Client(t)
	hlc, lc := redistest.Lockkit(t, hc), redistest.Lockkit(t, c)
	name := lockName(t, hc)
	holder := fair.New(hlc, name)
	redistest.MustLock(t, holder)
	var (
		mu    sync.Mutex
		order []string
	)
	want := ids(8)
	// Heartbeats every 20 s: only wake-ups get the waiters through in time.
	wait := joinInOrder(t, lc, name, nil, want, &mu, &order, fair.WithWaiterTimeout(time.Minute))
	redistest.Eventually(t, 10*time.Second, "all waiters subscribed", func() bool {
		return lc.Notifier().Channels() == len(want)
	})
	killed, err := hc.ClientKillByFilter(redistest.Ctx(t, 5*time.Second), "TYPE", "pubsub").Result()
	if err != nil || killed != 1 {
		t.Fatalf("CLIENT KILL TYPE pubsub = %d, %v; want 1 connection killed", killed, err)
	}
	redistest.MustUnlock(t, holder)
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	redistest.Receive(t, done, 15*time.Second, "every waiter to acquire")
	if !slices.Equal(order, want) {
		t.Fatalf("acquisition order %q, want %q", order, want)
	}
}
