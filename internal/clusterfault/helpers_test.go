package clusterfault_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// Bounds of the tests. Reaching callTimeout or waitBound means a hang;
// wakeBound is shorter than the lease, so that a waiter woken only by the
// end of the lease it last saw is likely caught.
const (
	callTimeout = 10 * time.Second // one Lock, TryLock or Unlock
	waitBound   = 60 * time.Second // a blocked Lock, the whole test included
	lease       = 8 * time.Second  // the holds' lease: renewed every 2.7 s
	wakeBound   = 1500 * time.Millisecond
	nameTries   = 1000 // names drawn to place a lock
)

// lockKey returns the hash of lock name under the default prefix; every
// other key of the lock lives in its slot.
func lockKey(name string) string { return lockkit.DefaultPrefix + ":{" + name + "}" }

// eachKindOnCluster starts a cluster and runs test on it for each kind of
// ks, in a subtest named for the kind; cc is a client of the cluster.
func eachKindOnCluster(t *testing.T, ks []kind, test func(t *testing.T, cl *redistest.Cluster, cc *redis.ClusterClient, k kind)) {
	t.Helper()
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	for _, k := range ks {
		t.Run(k.name, func(t *testing.T) { test(t, cl, cc, k) })
	}
}

// masterOf returns the address of the master cc's slot map names for
// lock name's keys.
func masterOf(t *testing.T, cc *redis.ClusterClient, name string) string {
	t.Helper()
	n, err := cc.MasterForKey(redistest.Ctx(t, callTimeout), lockKey(name))
	if err != nil {
		t.Fatalf("MasterForKey(%q): %v", name, err)
	}
	return n.Options().Addr
}

// drawName returns a unique lock name for kind k whose members live on
// distinct masters, the first on the master at address on ("": any).
func drawName(t *testing.T, k kind, cc *redis.ClusterClient, on string) string {
	t.Helper()
	for range nameTries {
		name := redistest.Unique(t)
		seen := map[string]bool{}
		for _, m := range k.members(name) {
			seen[masterOf(t, cc, m)] = true
		}
		if len(seen) == len(k.members(name)) && (on == "" || masterOf(t, cc, k.members(name)[0]) == on) {
			return name
		}
	}
	t.Fatalf("no name of %s found with its members on distinct masters", k.name)
	return ""
}

// renewals counts a Client's watchdog renewals (see Trace.Renewed).
type renewals struct {
	sent atomic.Int64 // holds whose renewal was answered, renewed or refused
}

// trace returns the Trace that counts into r.
func (r *renewals) trace() *lockkit.Trace {
	return &lockkit.Trace{Renewed: func(i lockkit.RenewInfo) { r.sent.Add(int64(i.Renewed + i.Retry)) }}
}

// sentOnce waits until a renewal counted by r is answered after the call,
// renewed or refused, and fails the test if none is within callTimeout;
// when says at which point of the test.
func (r *renewals) sentOnce(t *testing.T, when string) {
	t.Helper()
	from := r.sent.Load()
	redistest.Eventually(t, callTimeout, "a renewal answered "+when, func() bool { return r.sent.Load() > from })
}

// waiter is a Lock of another owner blocked on a held lock.
type waiter struct {
	l   lockkit.Locker
	got <-chan error
}

// lockToMove draws a lock name of kind k for cc, has a new owner of it on
// holders lock it, and returns the name, the key of its first member (the
// one whose slot the tests move), the holder and its lost signals.
func lockToMove(t *testing.T, k kind, cc *redis.ClusterClient, holders *lockkit.Client) (name, moved string, holder lockkit.Locker, lost []<-chan struct{}) {
	t.Helper()
	name = drawName(t, k, cc, "")
	holder = k.holder(holders, name)
	if err := holder.Lock(redistest.Ctx(t, callTimeout)); err != nil {
		t.Fatalf("holder's Lock: %v", err)
	}
	return name, lockKey(k.members(name)[0]), holder, redistest.LostSignals(holder)
}

// startWaiting starts a Lock of an owner made by newLock on c, and
// returns it once that Lock has found the lock taken and waits.
func startWaiting(t *testing.T, newLock newLock, c *lockkit.Client, name string) *waiter {
	t.Helper()
	var once sync.Once
	waiting := make(chan struct{})
	l := newLock(c, name, lockkit.WithTrace(&lockkit.Trace{
		WaitStart: func(lockkit.WaitStartInfo) { once.Do(func() { close(waiting) }) },
	}))
	w := &waiter{l: l, got: redistest.LockAsync(redistest.Ctx(t, waitBound), l)}
	select {
	case <-waiting:
	case err := <-w.got:
		t.Fatalf("a waiter's Lock returned %v while the lock was held", err)
	case <-time.After(callTimeout):
		t.Fatalf("a waiter's Lock did not start waiting within %v", callTimeout)
	}
	return w
}

// wokenInTurn checks that the waiters ws, blocked on a lock just given
// back, get it within bound each: all at once when shared, else one at a
// time, none while another holds it. Each gives it back at once.
func wokenInTurn(t *testing.T, shared bool, bound time.Duration, ws ...*waiter) {
	t.Helper()
	left := append([]*waiter(nil), ws...)
	for len(left) > 0 {
		i := wokenOne(t, bound, left)
		w := left[i]
		left = append(left[:i], left[i+1:]...)
		if !shared {
			for _, o := range left {
				redistest.NotYet(t, o.got, "a waiter's Lock returned while another waiter held the lock")
			}
		}
		if err := w.l.Unlock(redistest.Ctx(t, callTimeout)); err != nil {
			t.Fatalf("a woken waiter's Unlock: %v", err)
		}
	}
}

// wokenOne returns the index of the first of ws whose Lock returns, and
// fails the test unless one returns nil within bound.
func wokenOne(t *testing.T, bound time.Duration, ws []*waiter) int {
	t.Helper()
	deadline := time.After(bound)
	for {
		for i, w := range ws {
			select {
			case err := <-w.got:
				if err != nil {
					t.Fatalf("a waiter's Lock = %v; want the lock", err)
				}
				return i
			default:
			}
		}
		select {
		case <-deadline:
			t.Fatalf("no waiter got the lock within %v of its release", bound)
		case <-time.After(time.Millisecond):
		}
	}
}

// pttl returns the TTL of key at the node rc.
func pttl(t *testing.T, rc *redis.Client, key string) time.Duration {
	t.Helper()
	d, err := rc.PTTL(context.Background(), key).Result()
	if err != nil {
		t.Fatalf("PTTL %s: %v", key, err)
	}
	return d
}
