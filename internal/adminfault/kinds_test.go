package adminfault_test

import (
	"context"
	"strconv"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/lockers"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/spin"
)

// owner is one owner of a lock as the tests drive it.
type owner struct {
	lockkit.Locker
	// parts are the locks whose holds a Lock takes: the members of a
	// multi-lock, else the owner itself; each has a lost signal and a
	// token.
	parts []hold
	// force frees the lock whoever holds it (the kind's ForceUnlock); nil
	// for a kind without one.
	force func(ctx context.Context) (bool, error)
}

// hold is what the tests need of one held lock.
type hold = redistest.Held

// lost returns the lost signals of the current holds; call it after Lock.
func (o owner) lost() []<-chan struct{} { return redistest.LostOf(o.parts) }

// tokens returns the fencing tokens of the current holds.
func (o owner) tokens() []int64 { return redistest.TokensOf(o.parts) }

// kind is a lock kind of the tests.
type kind struct {
	name string
	// owner returns the i-th owner, on side s, of the lock called name.
	// Owners of one name are exclusive, but for the read side of an
	// rwlock, whose owner 0 reads and the others write.
	owner func(s side, name string, i int) owner
	// names are the Redis lock names a lock called name uses: its own
	// name, but for a multi-lock, the names of its members.
	names func(name string) []string
	// cohort is set for cohort mode (reentrant.WithLocalHandoff), whose
	// owners on one side share its hold and wait for it in memory.
	cohort bool
	// once is set for the kinds whose owner's second Lock does not
	// re-enter its hold (a semaphore's takes another permit, an
	// election's candidate campaigns again).
	once bool
	// polls is set for the kinds whose waiters sleep by backoff instead of
	// waiting for a release on pub/sub (spin, RedLock).
	polls bool
	// servers is how many redis-servers the kind's lock spans: one, but
	// for RedLock, whose masters must be independent.
	servers int
}

// single makes a kind of a lock that is its own only part; force is its
// ForceUnlock, nil for none.
func single[L interface {
	lockkit.Locker
	hold
}](name string, newLock func(s side, name string) L, force func(L) func(context.Context) (bool, error)) kind {
	return kind{
		name:  name,
		names: ownName,
		owner: func(s side, n string, _ int) owner {
			l := newLock(s, n)
			o := owner{Locker: l, parts: []hold{l}}
			if force != nil {
				o.force = force(l)
			}
			return o
		},
	}
}

// forceOf returns l's ForceUnlock.
func forceOf[L interface {
	ForceUnlock(ctx context.Context) (bool, error)
}](l L) func(context.Context) (bool, error) {
	return l.ForceUnlock
}

// kinds are the lock kinds of the tests.
func kinds() []kind {
	return []kind{
		single("reentrant", func(s side, n string) *reentrant.Mutex { return reentrant.New(s.nodes[0], n) }, forceOf),
		cohort(),
		single("fair", func(s side, n string) *fair.Mutex { return fair.New(s.nodes[0], n) }, forceOf),
		spinKind(),
		single("rwlock write", func(s side, n string) *rwlock.RWMutex { return rwlock.New(s.nodes[0], n) }, forceOf),
		{
			name:  "rwlock read",
			names: ownName,
			owner: func(s side, n string, i int) owner {
				m := rwlock.New(s.nodes[0], n)
				if i > 0 {
					return owner{Locker: m, parts: []hold{m}, force: m.ForceUnlock}
				}
				r := lockers.Reader{RWMutex: m}
				return owner{Locker: r, parts: []hold{r}, force: m.ForceUnlock}
			},
		},
		{
			name:  "multilock",
			names: func(n string) []string { return []string{n + ":a", "b:" + n} },
			owner: func(s side, n string, _ int) owner {
				a, b := reentrant.New(s.nodes[0], n+":a"), fair.New(s.nodes[0], "b:"+n)
				m := multilock.New([]lockkit.Locker{a, b})
				return owner{Locker: m, parts: []hold{a, b}, force: m.ForceUnlock}
			},
		},
		redlock(),
		{
			// One permit: its owners exclude each other.
			name:  "semaphore",
			names: ownName,
			once:  true,
			owner: func(s side, n string, _ int) owner {
				h := lockers.NewPermits(semaphore.New(s.nodes[0], n, 1), 1)
				return owner{Locker: h, parts: []hold{h}}
			},
		},
		{
			// Each owner is a candidate; the leader holds the lock.
			name:  "election",
			names: ownName,
			once:  true,
			owner: func(s side, n string, i int) owner {
				e := election.New(s.nodes[0], n)
				h := lockers.NewCandidate(e, "owner "+strconv.Itoa(i))
				return owner{Locker: h, parts: []hold{h}, force: e.ForceUnlock}
			},
		},
	}
}

// cohort is the kind of a reentrant lock in cohort mode.
func cohort() kind {
	k := single("reentrant cohort", func(s side, n string) *reentrant.Mutex {
		return reentrant.New(s.nodes[0], n, reentrant.WithLocalHandoff(4, lease/4))
	}, forceOf)
	k.cohort = true
	return k
}

// redlock is the kind of a RedLock over three masters.
func redlock() kind {
	k := single("redlock", func(s side, n string) *multilock.RedLock { return multilock.NewRedLock(s.nodes, n) }, nil)
	k.servers = 3
	k.polls = true
	return k
}

// spinKind is the kind of a spin lock.
func spinKind() kind {
	k := single("spin", func(s side, n string) *spin.Mutex {
		return spin.New(s.nodes[0], n, spin.WithBackoff(time.Millisecond, 16*time.Millisecond))
	}, forceOf)
	k.polls = true
	return k
}

// ownName is the names of a kind whose lock uses its own name alone.
func ownName(n string) []string { return []string{n} }

// kindNamed returns the kind called name.
func kindNamed(name string) (kind, bool) {
	for _, k := range kinds() {
		if k.name == name {
			return k, true
		}
	}
	return kind{}, false
}
