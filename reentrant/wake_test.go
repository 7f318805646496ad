package reentrant_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// processes starts n Clients made by dial, each with a waiter for lock
// name that locks and unlocks once, and waits until every one sleeps. The
// commands of all of them are counted by counter. It returns the waiters'
// results.
func processes(t *testing.T, dial func(testing.TB) redis.UniversalClient, counter *redistest.Counter, name string, n int) <-chan error {
	t.Helper()
	done := make(chan error, n)
	ctx := redistest.Ctx(t, 30*time.Second)
	for range n {
		rc := dial(t)
		rc.AddHook(counter.Hook())
		lc := redistest.Lockkit(t, rc)
		m := reentrant.New(lc, name)
		go func() {
			if err := m.Lock(ctx); err != nil {
				done <- err
				return
			}
			done <- m.Unlock(ctx)
		}()
		waitAsleep(t, lc, name, 1)
	}
	return done
}

// heldLock starts a redis-server and returns a dialer of clients to it and
// a Mutex of a fresh name, on a Client of its own, that holds the lock.
func heldLock(t *testing.T) (func(testing.TB) redis.UniversalClient, *reentrant.Mutex) {
	t.Helper()
	srv := redistest.StartServer(t)
	dial := func(t testing.TB) redis.UniversalClient { return srv.Client(t) }
	return dial, holding(t, dial)
}

// holding returns a Mutex of a fresh name, on a Client of its own made by
// dial, that holds the lock.
func holding(t *testing.T, dial func(testing.TB) redis.UniversalClient) *reentrant.Mutex {
	t.Helper()
	holder := reentrant.New(redistest.Lockkit(t, dial(t)), redistest.Unique(t))
	redistest.MustLock(t, holder)
	return holder
}

// releaseToProcess unlocks holder and waits for the one waiting process
// whose result arrives on done (see processes) to take the lock.
func releaseToProcess(t *testing.T, holder *reentrant.Mutex, done <-chan error) {
	t.Helper()
	redistest.MustUnlock(t, holder)
	if err := redistest.Receive(t, done, 10*time.Second, "the waiting process to take the lock"); err != nil {
		t.Fatal(err)
	}
}

// TestUnlock_wakes_one_process checks that a release wakes one of the
// processes that wait, not one waiter in each: every acquisition costs one
// acquire, however many processes wait.
//
// On a Cluster too: the waiters subscribe shard channels at the master of
// the lock's slot, where a release learns whether the process it wakes
// listens.
func TestUnlock_wakes_one_process(t *testing.T) {
	t.Run("server", func(t *testing.T) {
		dial, holder := heldLock(t)
		wakesOneProcess(t, dial, holder)
	})
	t.Run("cluster", func(t *testing.T) {
		cl := redistest.StartCluster(t)
		dial := func(t testing.TB) redis.UniversalClient { return cl.Client(t) }
		wakesOneProcess(t, dial, holding(t, dial))
	})
}

// wakesOneProcess has 8 processes of dial wait for holder's lock, releases
// it and checks that each acquisition cost one acquire and one release.
func wakesOneProcess(t *testing.T, dial func(testing.TB) redis.UniversalClient, holder *reentrant.Mutex) {
	t.Helper()
	const P = 8
	counter := redistest.NewCounter()
	done := processes(t, dial, counter, holder.Name(), P)

	counter.Reset()
	redistest.MustUnlock(t, holder)
	for range P {
		if err := redistest.Receive(t, done, 20*time.Second, "a waiter's Lock and Unlock"); err != nil {
			t.Fatal(err)
		}
	}
	// P acquires and P releases, and nothing else: no process tried the
	// lock while another held it.
	if got := counter.Scripts(); got != 2*P {
		t.Fatalf("%d scripts for %d acquisitions across %d processes, want %d (one acquire and one release each)", got, P, P, 2*P)
	}
}

// TestUnlock_skips_a_process_that_stopped_listening checks that a release
// wakes the next waiting process at once when the one registered before it
// is gone (its Client closed while it waited), instead of waiting for the
// holder's lease.
func TestUnlock_skips_a_process_that_stopped_listening(t *testing.T) {
	dial, holder := heldLock(t)
	name := holder.Name()

	// The first process to wait goes away while it waits.
	gone := redistest.Lockkit(t, dial(t))
	lost := make(chan error, 1)
	go func() { lost <- reentrant.New(gone, name).Lock(redistest.Ctx(t, 30*time.Second)) }()
	waitAsleep(t, gone, name, 1)
	counter := redistest.NewCounter()
	done := processes(t, dial, counter, name, 1)
	if err := gone.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, redistest.Receive(t, lost, 5*time.Second, "the closed Client's Lock"), lockkit.ErrClosed)

	// The holder's lease is 30 s: the next process is woken by the release.
	releaseToProcess(t, holder, done)
}

// TestLock_a_process_that_gave_up_passes_its_turn_on checks that a process
// whose waiters all gave up never holds up the processes behind it, be it
// woken after they left or still registered.
func TestLock_a_process_that_gave_up_passes_its_turn_on(t *testing.T) {
	dial, holder := heldLock(t)
	name := holder.Name()

	quitter := redistest.Lockkit(t, dial(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	left := make(chan error, 1)
	go func() { left <- reentrant.New(quitter, name).Lock(ctx) }()
	waitAsleep(t, quitter, name, 1)
	done := processes(t, dial, redistest.NewCounter(), name, 1)
	cancel()
	redistest.WantErr(t, redistest.Receive(t, left, 5*time.Second, "the cancelled Lock"), lockkit.ErrNotObtained)

	// The quitter registered first: the release picks it, and it passes
	// the turn on (or it no longer listens and is skipped).
	releaseToProcess(t, holder, done)
}

// TestUnlock_wakes_processes_on_a_Cluster_client_that_reads_from_replicas:
// on a Cluster client that may read from replicas (RouteRandomly here), a
// publish cannot tell whether a process still listens, so a release wakes
// a waiter in every waiting process (see the package documentation,
// Waiting). The waiting processes still take the lock in turn, woken by
// the releases rather than by the holder's 30 s lease.
func TestUnlock_wakes_processes_on_a_Cluster_client_that_reads_from_replicas(t *testing.T) {
	cl := redistest.StartCluster(t)
	dial := func(t testing.TB) redis.UniversalClient {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrsOf(cl.Servers()), RouteRandomly: true})
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	wakesInTurn(t, dial)
}

// TestUnlock_wakes_processes_on_a_Ring: on a Ring client a release wakes a
// waiter in every waiting process (see the package documentation,
// Waiting), which subscribe at the shard that has the lock: they take it
// in turn, woken by the releases rather than by the holder's 30 s lease.
// With three shards, the lock's is most often not the first.
func TestUnlock_wakes_processes_on_a_Ring(t *testing.T) {
	for _, shards := range []int{1, 3} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			addrs := map[string]string{}
			for i, s := range redistest.StartMasters(t, shards) {
				addrs[fmt.Sprint("s", i)] = s.Addr()
			}
			wakesInTurn(t, func(t testing.TB) redis.UniversalClient {
				c := redis.NewRing(&redis.RingOptions{Addrs: addrs})
				t.Cleanup(func() { _ = c.Close() })
				return c
			})
		})
	}
}

// wakesInTurn checks that two processes made by dial, waiting for a held
// lock, both take it in turn once it is released, each well within the
// holder's 30 s lease.
func wakesInTurn(t *testing.T, dial func(testing.TB) redis.UniversalClient) {
	t.Helper()
	holder := holding(t, dial)
	done := processes(t, dial, redistest.NewCounter(), holder.Name(), 2)
	redistest.MustUnlock(t, holder)
	for range 2 {
		if err := redistest.Receive(t, done, 10*time.Second, "a waiting process to take the lock"); err != nil {
			t.Fatal(err)
		}
	}
}

// addrsOf returns the addresses of servers.
func addrsOf(servers []*redistest.Server) []string {
	addrs := make([]string, len(servers))
	for i, s := range servers {
		addrs[i] = s.Addr()
	}
	return addrs
}
