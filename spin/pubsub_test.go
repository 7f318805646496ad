package spin_test

import (
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

// pubsubCommands are the commands a lock woken by pub/sub would send,
// directly or from a script.
var pubsubCommands = []string{"subscribe", "psubscribe", "ssubscribe", "publish", "spublish"}

// pubsubCalls returns the server's call counts of pubsubCommands since the
// last CONFIG RESETSTAT, from INFO commandstats (which counts commands run
// by scripts too). go-redis hooks do not see SUBSCRIBE, so this asks the
// server.
func pubsubCalls(t *testing.T, c redis.UniversalClient) map[string]int64 {
	t.Helper()
	all := redistest.CommandCalls(t, c)
	calls := map[string]int64{}
	for _, cmd := range pubsubCommands {
		if n, ok := all[cmd]; ok {
			calls[cmd] = n
		}
	}
	return calls
}

// TestLock_never_subscribes_or_publishes runs a contended spin lock (a
// waiter in its backoff loop, a release, a force-unlock) on a dedicated
// server and checks the server's own command statistics: no SUBSCRIBE of
// any kind and no PUBLISH, not even from a script. The same scenario with
// reentrant.Mutex is the control that shows the check sees them.
func TestLock_never_subscribes_or_publishes(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	s := redistest.StartServer(t)
	admin, ca, cb := s.Client(t), s.Client(t), s.Client(t)
	counter := redistest.CountCommands(cb)

	if err := admin.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	name := redistest.Unique(t)
	a, b := spin.New(redistest.Lockkit(t, ca), name), spin.New(redistest.Lockkit(t, cb), name)
	redistest.MustLock(t, a)
	done := make(chan error, 1)
	go func() { done <- b.Lock(ctx) }()
	redistest.Eventually(t, hang, "b to fail three attempts", func() bool { return counter.Scripts() >= 3 })
	if chans, err := admin.PubSubChannels(ctx, "*").Result(); err != nil || len(chans) != 0 {
		t.Fatalf("PUBSUB CHANNELS while b waits = %q, %v; want none", chans, err)
	}
	redistest.MustUnlock(t, a)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if ok, err := a.ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v", ok, err)
	}
	redistest.WantErr(t, b.Unlock(ctx), lockkit.ErrLost)
	for cmd, n := range pubsubCalls(t, admin) {
		if n != 0 {
			t.Errorf("the spin lock made the server run %s %d times", strings.ToUpper(cmd), n)
		}
	}

	// Control: the pub/sub-woken lock in the same scenario.
	if err := admin.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	name = redistest.Unique(t)
	lcb := redistest.Lockkit(t, cb)
	ra, rb := reentrant.New(redistest.Lockkit(t, ca), name), reentrant.New(lcb, name)
	sleepOn := core.SleepChannel(lcb, core.KeysFor(lcb, name).Channel)
	redistest.MustLock(t, ra)
	go func() { done <- rb.Lock(ctx) }()
	redistest.Eventually(t, hang, "the reentrant waiter to subscribe", func() bool {
		n, _ := admin.PubSubNumSub(ctx, sleepOn).Result()
		return n[sleepOn] == 1
	})
	redistest.MustUnlock(t, ra)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, rb)
	calls := pubsubCalls(t, admin)
	if calls["subscribe"] == 0 || calls["publish"] == 0 {
		t.Fatalf("control: reentrant lock made SUBSCRIBE %d and PUBLISH %d calls; the check cannot see them",
			calls["subscribe"], calls["publish"])
	}
}

// TestLock_on_cluster_excludes_without_pubsub hammers two spin locks,
// in different slots, on a three-master cluster, and checks that no node
// ran a pub/sub command.
func TestLock_on_cluster_excludes_without_pubsub(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	names := redistest.NamesOnDistinctMasters(t, cc, 2)
	for _, s := range cl.Servers() {
		if err := s.Client(t).ConfigResetStat(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
	const owners, rounds = 4, 15
	// Both names at once, each hammered by its own owners.
	errs := make(chan error, len(names))
	for _, name := range names {
		lockers := make([]redistest.Locker, owners)
		for i := range lockers {
			lockers[i] = spin.New(redistest.Lockkit(t, cc), name)
		}
		go func() {
			_, err := redistest.Hammer(ctx, lockers, rounds)
			errs <- err
		}()
	}
	for range names {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range cl.Servers() {
		for cmd, calls := range pubsubCalls(t, s.Client(t)) {
			if calls != 0 {
				t.Errorf("node %s ran %s %d times", s.Addr(), strings.ToUpper(cmd), calls)
			}
		}
	}
	for _, n := range names {
		redistest.AssertClean(t, cc, n)
	}
}
