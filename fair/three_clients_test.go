package fair_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// threeClients is a fair lock on a redis-server of its own, held by
// holder, with two waiters queued behind it on each of three Clients, in
// the order of threeIDs: the waiters "a" and "d" on the holder's Client,
// "b" and "e" on a second one, "c" and "f" on a third, which talks to the
// server through proxy and whose go-redis client gives up on a reply or a
// new connection after 200 ms, without retrying (its waiters are asleep,
// their first attempts answered, when the set-up returns). Each waiter,
// once it has the lock, records its turn in order (and fails the test if
// another waiter holds the lock too), then unlocks.
type threeClients struct {
	t       *testing.T
	srv     *redistest.Server
	e       *lockEnv
	proxy   *redistest.Proxy
	replies *scriptReplies // of the third Client
	holder  *fair.Mutex

	mu     sync.Mutex
	inside bool     // a waiter holds the lock
	order  []string // the waiters in the order they took the lock
	done   chan string
}

// threeIDs are the owner threeIDs of threeClients' waiters, in the order they join.
var threeIDs = []string{"a", "b", "c", "d", "e", "f"}

// newThreeClients sets up a threeClients whose waiters have waiter
// timeout wt.
func newThreeClients(t *testing.T, wt time.Duration) *threeClients {
	t.Helper()
	srv, e, p, rc := proxied(t)
	replies := new(scriptReplies)
	rc.AddHook(replies)
	x := &threeClients{t: t, srv: srv, e: e, proxy: p, replies: replies, holder: e.held(), done: make(chan string, len(threeIDs))}
	clients := []*lockkit.Client{e.lc, redistest.Lockkit(t, srv.Client(t)), redistest.Lockkit(t, rc)}
	ctx := redistest.Ctx(t, 2*time.Minute)
	for i, id := range threeIDs {
		m := e.on(clients[i%3]).mutex(lockkit.WithOwner(id), fair.WithWaiterTimeout(wt))
		go func() {
			if err := m.Lock(ctx); err != nil {
				t.Errorf("Lock(%s): %v", id, err)
				x.done <- id
				return
			}
			x.turn(id)
			if err := m.Unlock(ctx); err != nil {
				t.Errorf("Unlock(%s): %v", id, err)
			}
			x.done <- id
		}()
		e.waitQueue(threeIDs[:i+1]...)
		if i%3 == 2 {
			// Asleep: its attempts before and after it subscribed were
			// answered, so that it waits out what the test does next.
			n := int64(i/3+1) * 2
			redistest.Eventually(t, 10*time.Second, id+" asleep", func() bool { return replies.answered.Load() >= n })
		}
	}
	return x
}

// turn records the turn of waiter id, which holds the lock, and fails the
// test if another waiter holds it too.
func (x *threeClients) turn(id string) {
	x.mu.Lock()
	if x.inside {
		x.t.Errorf("%s took the lock while another waiter held it", id)
	}
	x.inside = true
	x.order = append(x.order, id)
	x.mu.Unlock()
	x.mu.Lock()
	x.inside = false
	x.mu.Unlock()
}

// served waits until every waiter has had its turn (none starved), for at
// most 10 s, and returns the order of their turns.
func (x *threeClients) served() []string {
	x.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for range threeIDs {
		redistest.Receive(x.t, x.done, time.Until(deadline), "every waiter to have its turn")
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Clone(x.order)
}

// TestLock_waiters_of_three_Clients_keep_their_order_across_a_stall: the
// server stops answering for 1 s, well within the waiter timeout (3 s),
// while six waiters of three Clients queue behind a holder, one of the
// Clients giving up on every reply after 200 ms: the queue comes out of
// the stall as it was, each waiter takes the lock in the order it joined,
// and nothing of the lock is left.
func TestLock_waiters_of_three_Clients_keep_their_order_across_a_stall(t *testing.T) {
	x := newThreeClients(t, 3*time.Second)
	x.srv.Stall(t, time.Second)
	x.e.wantQueue(threeIDs...) // served once the stall is over
	redistest.MustUnlock(t, x.holder)
	if got := x.served(); !slices.Equal(got, threeIDs) {
		t.Fatalf("turns %q, want %q", got, threeIDs)
	}
	x.e.wantQueue()
}

// TestLock_waiters_of_three_Clients_all_queue_again_after_a_stall_past_their_waiter_timeout:
// the server stops answering for 1.5 s, past the deadline of every entry
// (a waiter timeout of 600 ms, on the server's clock), while six waiters
// of three Clients queue behind a holder, the attempts of one Client
// failing meanwhile: none is lost, the queue forms again with every
// waiter, each takes the lock in the order of that queue, and nothing of
// the lock is left.
func TestLock_waiters_of_three_Clients_all_queue_again_after_a_stall_past_their_waiter_timeout(t *testing.T) {
	x := newThreeClients(t, 600*time.Millisecond)
	x.srv.Stall(t, 1500*time.Millisecond)
	var queue []string
	redistest.Eventually(t, 10*time.Second, "every waiter queued again", func() bool {
		queue = x.e.queue()
		return slices.Equal(slices.Sorted(slices.Values(queue)), threeIDs)
	})
	redistest.MustUnlock(t, x.holder)
	if got := x.served(); !slices.Equal(got, queue) {
		t.Fatalf("turns %q, want the order of the queue formed again, %q", got, queue)
	}
	x.e.wantQueue()
}

// TestLock_waiters_of_three_Clients_keep_their_order_across_a_cut: the
// network between the server and the Client of two waiters ("c" and "f")
// is cut until attempts of theirs have failed, and healed well within
// their waiter timeout (6 s): both waiters keep their places, the queue
// is as it was, each waiter takes the lock in the order it joined, and
// nothing of the lock is left.
func TestLock_waiters_of_three_Clients_keep_their_order_across_a_cut(t *testing.T) {
	x := newThreeClients(t, 6*time.Second) // a heartbeat every 2 s
	x.proxy.Cut()
	redistest.Eventually(t, 10*time.Second, "attempts of c and f to fail while cut off", func() bool {
		return x.replies.failed.Load() >= 2
	})
	x.proxy.Heal()
	x.e.wantQueue(threeIDs...)
	redistest.MustUnlock(t, x.holder)
	if got := x.served(); !slices.Equal(got, threeIDs) {
		t.Fatalf("turns %q, want %q", got, threeIDs)
	}
	x.e.wantQueue()
}

// TestLock_waiters_of_three_Clients_are_all_served_after_a_restart: the
// server restarts empty while six waiters of three Clients queue behind
// a holder, losing the hold and the queue: the holder's Unlock returns
// ErrLost, every waiter queues again at its next attempt and takes the
// lock, one at a time, without an error, within 10 s (their waiter
// timeout, a minute, plays no part: the lost connections wake them), and
// nothing of the lock is left.
func TestLock_waiters_of_three_Clients_are_all_served_after_a_restart(t *testing.T) {
	x := newThreeClients(t, time.Minute) // no heartbeat within the test
	x.srv.Restart(t)
	redistest.Receive(t, x.holder.Lost(), redistest.Hang, "the holder to learn its hold is lost")
	redistest.WantErr(t, x.holder.Unlock(redistest.Ctx(t, 5*time.Second)), lockkit.ErrLost)
	got := x.served()
	if !slices.Equal(slices.Sorted(slices.Values(got)), threeIDs) {
		t.Fatalf("turns %q, want each of %q once", got, threeIDs)
	}
	x.e.wantQueue()
}
