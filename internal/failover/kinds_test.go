package failover_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/internal/lockers"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/spin"
)

// kind is a lock kind as the failover tests take it: the holder's side and
// the side of the other owner, which waits for the holder. Both are the
// kind's conformance constructor, except for the read side of an rwlock,
// held by a reader and waited for by a writer, and for the kinds whose
// Lock returns a value (package lockers).
type kind struct {
	name           string
	holder, waiter func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker
	// names are the Redis lock names a lock called name uses: its own, or
	// its members' for a multi-lock.
	names func(name string) []string
	// watch, when set, starts a watcher of the lock called name on c
	// before the failover, and returns the check that the watcher sees the
	// waiter l hold the lock once its blocked Lock returned.
	watch func(t *testing.T, c *lockkit.Client, name string) (seen func(t *testing.T, l lockkit.Locker))
	// noReplicaAck is set for the kinds lockkit.WithReplicaAck does not
	// apply to.
	noReplicaAck bool
	// apart is set when a third owner must try the lock from a Client of
	// its own: in cohort mode, a TryLock fails while another Mutex of its
	// Client waits for the lock, whether or not it is free.
	apart bool
}

// single is the names of a lock that is its own only part.
func single(name string) []string { return []string{name} }

// semPermits is the number of permits of the tests' semaphores: the
// holder takes them all at once, the other owner waits for one.
const semPermits = 2

// kinds are every lock kind, made as the conformance suite makes them.
func kinds() []kind {
	exclusive := func(k conformance.Kind) kind {
		return kind{name: k.Name, holder: k.New, waiter: k.New, names: single}
	}
	rw := conformance.Of("rwlock", rwlock.New)
	multi := conformance.Kind{
		Name: "multilock",
		New: func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
			a, b := memberNames(name)
			return multilock.New([]lockkit.Locker{reentrant.New(c, a, opts...), reentrant.New(c, b, opts...)})
		},
	}
	return []kind{
		exclusive(conformance.Of("reentrant", reentrant.New)),
		{name: "reentrant-cohort", holder: cohort, waiter: cohort, names: single, apart: true},
		exclusive(conformance.Of("fair", fair.New)),
		exclusive(conformance.Of("spin", fastSpin)),
		exclusive(rw),
		{
			name: "rwlock-read",
			holder: func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
				return lockers.Reader{RWMutex: rwlock.New(c, name, opts...)}
			},
			waiter: rw.New,
			names:  single,
		},
		{name: multi.Name, holder: multi.New, waiter: multi.New, names: func(name string) []string {
			a, b := memberNames(name)
			return []string{a, b}
		}},
		{
			name: "semaphore",
			holder: func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
				return lockers.NewPermits(semaphore.New(c, name, semPermits, opts...), semPermits)
			},
			waiter: func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
				return lockers.NewPermits(semaphore.New(c, name, semPermits, opts...), 1)
			},
			names:        single,
			noReplicaAck: true,
		},
		{
			name:         "election",
			holder:       candidate("the holder"),
			waiter:       candidate("the other owner"),
			names:        single,
			watch:        observer,
			noReplicaAck: true,
		},
	}
}

// ackKinds are the kinds lockkit.WithReplicaAck applies to.
func ackKinds() []kind {
	var ks []kind
	for _, k := range kinds() {
		if !k.noReplicaAck {
			ks = append(ks, k)
		}
	}
	return ks
}

// candidate returns the constructor of a candidate of an election that
// campaigns with value.
func candidate(value string) func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
	return func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
		return lockers.NewCandidate(election.New(c, name, opts...), value)
	}
}

// observer observes the election name on c (its subscription is confirmed
// when Observe returns), and returns the check that it reports the
// candidate l, which must lead now, as the leader: its value and term.
// The observer keeps observing across the failover, so it must subscribe
// again to the election's channel at the new master.
func observer(t *testing.T, c *lockkit.Client, name string) func(t *testing.T, l lockkit.Locker) {
	t.Helper()
	leaders, err := election.New(c, name).Observe(redistest.Ctx(t, waiterBound+settleBound+wakeUpBound))
	if err != nil {
		t.Fatalf("election: Observe: %v", err)
	}
	return func(t *testing.T, l lockkit.Locker) {
		t.Helper()
		cand := l.(*lockers.Candidate)
		observed(t, leaders, election.Leader{Value: cand.Value(), Term: cand.Token()}, wakeUpBound, "the leader")
	}
}

// observed reads obs until it reports want, and fails the test if that
// does not happen within bound.
func observed(t *testing.T, obs <-chan election.Leader, want election.Leader, bound time.Duration, what string) {
	t.Helper()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	var seen []election.Leader
	for {
		select {
		case l, ok := <-obs:
			if !ok {
				t.Fatalf("the observer's channel closed waiting for %s", what)
			}
			if l == want {
				return
			}
			seen = append(seen, l)
		case <-timer.C:
			t.Fatalf("the observer did not report %s (%+v) within %v; it reported %+v", what, want, bound, seen)
		}
	}
}

// memberNames are the names of a multi-lock's two members.
func memberNames(name string) (string, string) { return name + ":a", name + ":b" }

// cohort is a reentrant lock in cohort mode: the holder's and the other
// owner's Clients each hold it in Redis as a process.
func cohort(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
	return reentrant.New(c, name, append([]lockkit.Option{reentrant.WithLocalHandoff(4, 250*time.Millisecond)}, opts...)...)
}

// fastSpin is a spin lock whose backoff is short enough for the tests.
func fastSpin(c *lockkit.Client, name string, opts ...lockkit.Option) *spin.Mutex {
	return spin.New(c, name, append([]lockkit.Option{spin.WithBackoff(time.Millisecond, 8*time.Millisecond)}, opts...)...)
}

// held is a lock of one kind held by one owner, with its lost signals.
type held struct {
	k      kind
	name   string
	holder lockkit.Locker
	lost   []<-chan struct{}
}

// lockEach locks a lock of each of ks, picked for d, through holders.
func lockEach(t *testing.T, d deployment, ks []kind, holders *lockkit.Client) []held {
	t.Helper()
	var holds []held
	for _, k := range ks {
		h := held{k: k, name: pickName(t, k, d)}
		h.holder = k.holder(holders, h.name)
		if err := h.holder.Lock(redistest.Ctx(t, callTimeout)); err != nil {
			t.Fatalf("%s: holder's Lock: %v", k.name, err)
		}
		h.lost = redistest.LostSignals(h.holder)
		holds = append(holds, h)
	}
	return holds
}
