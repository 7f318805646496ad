package failover_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// Generous bounds: reaching one means a hang.
const (
	callTimeout  = 10 * time.Second // one Lock, TryLock or Unlock
	waiterBound  = 90 * time.Second // the blocked Lock, failover included
	settleBound  = 30 * time.Second // a client finding the new master
	wakeUpBound  = 30 * time.Second // the blocked Lock, once the lock is free
	pickAttempts = 1000             // names drawn to find one on a master
)

// deployment is Redis with replicas, ready to be failed over.
type deployment struct {
	// client returns a new go-redis client of the deployment, closed in
	// t.Cleanup.
	client func(t testing.TB) redis.UniversalClient
	// affected reports whether the failover moves the keys of lock name;
	// nil means every lock's.
	affected func(name string) bool
	// replicated returns once the replicas have every write so far.
	replicated func(t testing.TB)
	// failover fails the deployment over and returns once it has settled.
	failover func(t testing.TB)
}

// deployments are the ways of failing over that every kind is put through.
var deployments = []struct {
	name  string
	start func(t *testing.T) deployment
}{
	{"sentinel/SENTINEL_FAILOVER", func(t *testing.T) deployment {
		d := redistest.StartSentinel(t, 1, 3)
		return sentinel(d, func(t testing.TB) { d.Failover(t) })
	}},
	{"sentinel/SIGKILL_master", func(t *testing.T) deployment {
		d := redistest.StartSentinel(t, 2, 3)
		return sentinel(d, func(t testing.TB) { d.KillMaster(t) })
	}},
	{"cluster/CLUSTER_FAILOVER", func(t *testing.T) deployment {
		cl := redistest.StartClusterWithReplicas(t)
		return cluster(t, cl, func(t testing.TB, m *redistest.Server) { cl.Failover(t, m) })
	}},
	{"cluster/SIGKILL_master", func(t *testing.T) deployment {
		cl := redistest.StartClusterWithReplicas(t)
		return cluster(t, cl, func(t testing.TB, m *redistest.Server) { cl.KillMaster(t, m) })
	}},
}

func sentinel(d *redistest.Sentinel, failover func(testing.TB)) deployment {
	return deployment{
		client:     func(t testing.TB) redis.UniversalClient { return d.FailoverClient(t) },
		replicated: d.WaitReplicated,
		failover:   failover,
	}
}

// cluster fails over the first master, where it places the locks.
func cluster(t *testing.T, cl *redistest.Cluster, failover func(testing.TB, *redistest.Server)) deployment {
	target := cl.Servers()[0]
	cc := cl.Client(t)
	return deployment{
		client: func(t testing.TB) redis.UniversalClient { return cl.Client(t) },
		affected: func(name string) bool {
			m, err := cc.MasterForKey(t.Context(), "{"+name+"}")
			if err != nil {
				t.Fatalf("MasterForKey(%q): %v", name, err)
			}
			return m.Options().Addr == target.Addr()
		},
		replicated: cl.WaitReplicated,
		failover:   func(t testing.TB) { failover(t, target) },
	}
}

// TestFailover_holds_survive_or_are_reported_lost_and_waiters_wake puts
// every lock kind through every failover of a deployment at once: a
// holder takes the lock, another owner blocks in Lock, the replicas catch
// up and the deployment fails over. Then the hold must have survived
// (another owner's TryLock fails) or been reported lost before another
// owner got it; the holder's Unlock (retried while the clients find the
// new master, as its documentation allows) releases it or reports the
// loss; the blocked Lock returns once the lock is free, holding it with a
// larger token.
func TestFailover_holds_survive_or_are_reported_lost_and_waiters_wake(t *testing.T) {
	t.Parallel()
	for _, dep := range deployments {
		t.Run(dep.name, func(t *testing.T) {
			t.Parallel()
			d := dep.start(t)
			holders := redistest.Lockkit(t, d.client(t))
			waiters := redistest.Lockkit(t, d.client(t))
			var probes []*probe
			for _, k := range kinds() {
				probes = append(probes, hold(t, k, holders, waiters, pickName(t, k, d)))
			}
			d.replicated(t)
			d.failover(t)
			for _, p := range probes {
				t.Run(p.k.name, func(t *testing.T) {
					t.Parallel()
					p.check(t, waiters)
				})
			}
		})
	}
}

// pickName returns a unique lock name whose keys the failover of d moves;
// for a multi-lock, those of its first member (the other's may live on
// another master).
func pickName(t *testing.T, k kind, d deployment) string {
	t.Helper()
	for range pickAttempts {
		name := redistest.Unique(t)
		if d.affected == nil || d.affected(k.names(name)[0]) {
			return name
		}
	}
	t.Fatalf("no name found whose keys the failover moves")
	return ""
}

// probe is one kind's lock held across the failover, and another owner's
// Lock blocked on it.
type probe struct {
	k      kind
	name   string
	holder lockkit.Locker
	lost   []<-chan struct{} // the holder's lost signals
	tokens []int64           // the holder's tokens
	// releasing is set before the holder's first Unlock call.
	releasing atomic.Bool
	waiter    lockkit.Locker
	got       chan waited
}

// waited is how the blocked Lock ended.
type waited struct {
	err error
	// holderDone is set when, as the Lock returned, the holder had begun
	// to release the lock or been told it lost it.
	holderDone bool
}

// hold takes the lock called name as a holder of kind k on the Client
// holders, and starts a Lock of another owner on the Client waiters, which
// it returns once that Lock has found the lock taken and is waiting.
func hold(t *testing.T, k kind, holders, waiters *lockkit.Client, name string) *probe {
	t.Helper()
	p := &probe{k: k, name: name, holder: k.holder(holders, name), got: make(chan waited, 1)}
	if err := p.holder.Lock(redistest.Ctx(t, callTimeout)); err != nil {
		t.Fatalf("%s: holder's Lock: %v", k.name, err)
	}
	p.lost, p.tokens = lostSignals(p.holder), tokens(p.holder)

	var once sync.Once
	waiting := make(chan struct{})
	p.waiter = k.waiter(waiters, name, lockkit.WithTrace(&lockkit.Trace{
		WaitStart: func(lockkit.WaitStartInfo) { once.Do(func() { close(waiting) }) },
	}))
	ctx := redistest.Ctx(t, waiterBound)
	go func() {
		err := p.waiter.Lock(ctx)
		p.got <- waited{err: err, holderDone: p.releasing.Load() || anyClosed(p.lost)}
	}()
	select {
	case <-waiting:
	case w := <-p.got:
		t.Fatalf("%s: the other owner's Lock returned %v while the lock was held", k.name, w.err)
	case <-time.After(callTimeout):
		t.Fatalf("%s: the other owner's Lock did not start waiting within %v", k.name, callTimeout)
	}
	return p
}

// check checks the contract once the failover has settled.
func (p *probe) check(t *testing.T, waiters *lockkit.Client) {
	// Another owner gets the lock only if the holder was told it lost it.
	third := p.k.waiter(waiters, p.name)
	took := tryLockAfter(t, third)
	survived := !anyClosed(p.lost)
	if took {
		if survived {
			t.Fatalf("another owner holds the lock after the failover and its holder was not told")
		}
		retry(t, "the other owner's Unlock", third.Unlock)
	}

	// The holder's Unlock releases the lock, or reports its loss.
	p.releasing.Store(true)
	var unlockErr error
	retry(t, "the holder's Unlock", func(ctx context.Context) error {
		unlockErr = p.holder.Unlock(ctx)
		if errors.Is(unlockErr, lockkit.ErrLost) {
			return nil
		}
		return unlockErr
	})
	switch {
	case unlockErr != nil && !anyClosed(p.lost):
		t.Fatalf("holder's Unlock = %v, yet its lost signal is open", unlockErr)
	case unlockErr == nil && !survived:
		t.Fatalf("holder's Unlock succeeded after its hold was reported lost")
	}
	t.Logf("hold survived the failover: %v", unlockErr == nil)

	// The blocked Lock returns now that the lock is free.
	w := redistest.Receive(t, p.got, wakeUpBound, "the blocked Lock to return once the lock is free")
	if w.err != nil {
		t.Fatalf("the Lock blocked across the failover: %v", w.err)
	}
	if !w.holderDone {
		t.Fatalf("the other owner got the lock while its holder neither released it nor was told it lost it")
	}
	for i, tok := range tokens(p.waiter) {
		if tok <= p.tokens[i] {
			t.Errorf("lock %s: token %d after the failover, not above the holder's %d", parts(p.waiter)[i].Name(), tok, p.tokens[i])
		}
	}
	retry(t, "the other owner's Unlock", func(ctx context.Context) error { return p.waiter.Unlock(ctx) })
}

// tryLockAfter runs TryLock of l, another owner than the holder, until it
// answers after the failover (see retry), and reports whether it took the
// lock.
func tryLockAfter(t *testing.T, l lockkit.Locker) bool {
	t.Helper()
	var took bool
	retry(t, "another owner's TryLock after the failover", func(ctx context.Context) error {
		ok, err := l.TryLock(ctx)
		took = ok
		return err
	})
	return took
}

// retry calls f, each call bounded by callTimeout, until it returns nil,
// and fails the test if that does not happen within settleBound: right
// after a failover, a client may still talk to the old master for a
// moment (the calls then fail with a network or READONLY error, and a
// retried Unlock is safe).
func retry(t *testing.T, what string, f func(ctx context.Context) error) {
	t.Helper()
	deadline := time.Now().Add(settleBound)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		err := f(ctx)
		cancel()
		if err == nil {
			return
		}
		if errors.Is(err, lockkit.ErrNotHeld) || errors.Is(err, lockkit.ErrInvalid) || time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: %v; trying again", what, err)
		time.Sleep(50 * time.Millisecond)
	}
}
