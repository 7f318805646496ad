package failover_test

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestLock_waits_out_a_subscription_that_fails_while_the_master_fails_over
// blocks another owner's Lock of each kind behind a holder, on a Client
// that can open no connection from the moment the Lock was first refused:
// its subscription to be woken fails, and goes on failing while the
// deployment fails over. Each Lock waits that out instead of returning the
// error, subscribes at the new master once connections can be opened
// again, and gets the lock, with a larger token, once its holder releases
// it.
func TestLock_waits_out_a_subscription_that_fails_while_the_master_fails_over(t *testing.T) {
	eachDeployment(t, func(t *testing.T, d deployment) {
		holders := redistest.Lockkit(t, d.client(t))
		rc := d.client(t)
		fail := &redistest.FailDials{}
		addHook(rc, fail)
		waiters := redistest.Lockkit(t, rc)
		type blocked struct {
			k              kind
			holder, waiter lockkit.Locker
			tokens         []int64
			got            <-chan error
		}
		var locks []*blocked
		for _, k := range kindsNamed("reentrant", "fair", "rwlock", "rwlock-read") {
			name := pickName(t, k, d)
			b := &blocked{k: k, holder: k.holder(holders, name)}
			if err := b.holder.Lock(redistest.Ctx(t, callTimeout)); err != nil {
				t.Fatalf("%s: holder's Lock: %v", k.name, err)
			}
			b.tokens = redistest.Tokens(b.holder)
			// A refused TryLock opens the waiter's connection for
			// commands at the lock's master.
			if ok, err := k.waiter(waiters, name).TryLock(redistest.Ctx(t, callTimeout)); ok || err != nil {
				t.Fatalf("%s: another owner's TryLock of the held lock = %v, %v; want false, nil", k.name, ok, err)
			}
			var once sync.Once
			waiting := make(chan struct{})
			b.waiter = k.waiter(waiters, name, lockkit.WithTrace(&lockkit.Trace{
				WaitStart: func(lockkit.WaitStartInfo) { once.Do(func() { close(waiting) }) },
			}))
			locks = append(locks, b)
			if len(locks) == 1 {
				fail.Arm(math.MaxInt32)
			}
			b.got = redistest.LockAsync(redistest.Ctx(t, waiterBound), b.waiter)
			redistest.Receive(t, waiting, callTimeout, k.name+": the other owner's Lock to wait")
		}
		redistest.Eventually(t, callTimeout, "the subscription's dials to fail", func() bool {
			return fail.Left() < math.MaxInt32-2
		})
		d.replicated(t)
		d.failover(t)
		for _, b := range locks {
			redistest.NotYet(t, b.got, b.k.name+": the Lock whose subscription failed returned while the lock was held")
		}
		fail.Arm(0)
		for _, b := range locks {
			t.Run(b.k.name, func(t *testing.T) {
				t.Parallel()
				retry(t, "the holder's Unlock", b.holder.Unlock)
				if err := redistest.Receive(t, b.got, wakeUpBound, "the blocked Lock to return once the lock is free"); err != nil {
					t.Fatalf("the Lock whose subscription failed across the failover: %v", err)
				}
				for i, tok := range redistest.Tokens(b.waiter) {
					if tok <= b.tokens[i] {
						t.Errorf("token %d after the failover, not above the holder's %d", tok, b.tokens[i])
					}
				}
				retry(t, "the other owner's Unlock", func(ctx context.Context) error { return b.waiter.Unlock(ctx) })
			})
		}
	})
}

// addHook adds h to rc, and on a Cluster client to the client of each of
// its nodes, where the connections are dialed.
func addHook(rc redis.UniversalClient, h redis.Hook) {
	if cc, ok := rc.(*redis.ClusterClient); ok {
		cc.OnNewNode(func(c *redis.Client) { c.AddHook(h) })
		return
	}
	rc.AddHook(h)
}
