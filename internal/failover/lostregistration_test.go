package failover_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
	"github.com/lockkit/lockkit/reentrant"
)

// registrationLease is the holder's lease in the test below: long enough
// for its watchdog to renew it across a Cluster failover (the clients may
// take a few seconds to find the new master), short enough to wait out.
const registrationLease = 15 * time.Second

// TestLock_whose_registration_a_SIGKILL_lost_returns_within_the_holders_lease
// blocks a reentrant Lock behind a holder on a Cluster, kills the master
// with SIGKILL and, once the waiter sleeps again subscribed at the new
// master, deletes there the registration of its process, as a write the
// replica never got would be lost. The holder's release then wakes
// nobody (no process is registered, and the waiter does not listen on the
// lock's own channel), so the Lock must try again on its own when the
// holder's lease would have run out: it returns within that lease (and
// some slack) of the release.
func TestLock_whose_registration_a_SIGKILL_lost_returns_within_the_holders_lease(t *testing.T) {
	t.Parallel()
	cl := redistest.StartClusterWithReplicas(t)
	target := cl.Servers()[0]
	d := cluster(t, cl, func(t testing.TB, m *redistest.Server) { cl.KillMaster(t, m) })
	holders := redistest.Lockkit(t, d.client(t), lockkit.WithWatchdogTimeout(registrationLease))
	waiters := redistest.Lockkit(t, d.client(t))
	name := pickName(t, kind{names: single}, d)
	holder := reentrant.New(holders, name)
	redistest.MustLock(t, holder)

	keys := core.KeysFor(waiters, name)
	own := core.OwnChannel(keys.Channel, waiters.Notifier())
	wire := strings.TrimPrefix(own, notify.ShardMark) // as the server names it
	got := redistest.LockAsync(redistest.Ctx(t, waiterBound), reentrant.New(waiters, name))
	redistest.Eventually(t, callTimeout, "the waiter to sleep", func() bool { return waiters.Notifier().Sleeping(own) == 1 })
	d.replicated(t)
	master := cl.KillMaster(t, target).Client(t)

	// Subscribed at the new master, and registered there: the state a
	// release would wake it from.
	redistest.Eventually(t, settleBound, "the waiter to sleep again at the new master", func() bool {
		ctx := redistest.Ctx(t, callTimeout)
		subs, err := master.PubSubShardNumSub(ctx, wire).Result()
		return err == nil && subs[wire] == 1 &&
			master.ZScore(ctx, keys.Procs, waiters.Notifier().ID()).Err() == nil &&
			waiters.Notifier().Sleeping(own) == 1
	})
	if err := master.Del(redistest.Ctx(t, callTimeout), keys.Procs).Err(); err != nil {
		t.Fatalf("DEL %s: %v", keys.Procs, err)
	}
	retry(t, "the holder's Unlock", holder.Unlock)
	released := time.Now()
	bound := registrationLease + 2*time.Second
	if err := redistest.Receive(t, got, bound, "the blocked Lock to return within the holder's lease of the release"); err != nil {
		t.Fatalf("the Lock whose registration was lost: %v", err)
	}
	t.Logf("the Lock returned %v after the release", time.Since(released).Round(time.Millisecond))
}
