package faultkit

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

// Kind is a lock kind of the tests.
type Kind struct {
	Name string
	// Owner returns the i-th owner of the lock called name on the Clients
	// nodes of one side (one Client per server, the kinds of one server
	// using nodes[0]). Owners of one name exclude each other, but for the
	// read side of an rwlock, whose owner 0 reads and the others write.
	// Nil for a latch, which has no owner.
	Owner func(nodes []*lockkit.Client, name string, i int) Owner
	// Names are the Redis lock names a lock called name uses: its own
	// name, but for a multi-lock, the names of its members.
	Names func(name string) []string
	// Cohort is set for cohort mode (reentrant.WithLocalHandoff), whose
	// owners on one side share its hold and wait for it in memory.
	Cohort bool
	// Once is set for the kinds whose owner's second Lock does not
	// re-enter its hold (a semaphore's takes another permit, an
	// election's candidate campaigns again).
	Once bool
	// Polls is set for the kinds whose waiters sleep by backoff instead of
	// waiting for a release on pub/sub (spin, RedLock): they have no place
	// in line.
	Polls bool
	// Servers is how many redis-servers the kind's lock spans: one, but
	// for RedLock, whose masters must be independent.
	Servers int
}

// Config is what the tests of a package set of the kinds' locks.
type Config struct {
	// HandoffHold is how long cohort mode may keep a hold in memory,
	// handed over from owner to owner (the hold of
	// reentrant.WithLocalHandoff, which allows 4 hand-overs in a row).
	HandoffHold time.Duration
	// FairWaiterTimeout is the waiter timeout of the fair locks (the fair
	// kind, the fair member of the multi-lock); 0 for the default
	// (fair.DefaultWaiterTimeout).
	FairWaiterTimeout time.Duration
}

// Kinds are the lock kinds of the tests, whose locks are set as cfg says:
// reentrant, reentrant in cohort mode, fair, spin, the write and read
// sides of an rwlock, a multi-lock of a reentrant and a fair lock,
// RedLock over three servers, a semaphore of one permit, an election.
func Kinds(cfg Config) []Kind {
	var fairOpts []lockkit.Option
	if cfg.FairWaiterTimeout > 0 {
		fairOpts = append(fairOpts, fair.WithWaiterTimeout(cfg.FairWaiterTimeout))
	}
	return []Kind{
		single("reentrant", func(c *lockkit.Client, n string) *reentrant.Mutex { return reentrant.New(c, n) }, forceOf),
		cohort(cfg.HandoffHold),
		single("fair", func(c *lockkit.Client, n string) *fair.Mutex { return fair.New(c, n, fairOpts...) }, forceOf),
		spinKind(),
		single("rwlock write", func(c *lockkit.Client, n string) *rwlock.RWMutex { return rwlock.New(c, n) }, forceOf),
		{
			Name:    "rwlock read",
			Names:   OwnName,
			Servers: 1,
			Owner: func(nodes []*lockkit.Client, n string, i int) Owner {
				m := rwlock.New(nodes[0], n)
				if i > 0 {
					return Owner{Locker: m, Parts: []redistest.Held{m}, Force: m.ForceUnlock}
				}
				r := lockers.Reader{RWMutex: m}
				return Owner{Locker: r, Parts: []redistest.Held{r}, Force: m.ForceUnlock}
			},
		},
		{
			Name:    "multilock",
			Names:   func(n string) []string { return []string{n + ":a", "b:" + n} },
			Servers: 1,
			Owner: func(nodes []*lockkit.Client, n string, _ int) Owner {
				a, b := reentrant.New(nodes[0], n+":a"), fair.New(nodes[0], "b:"+n, fairOpts...)
				m := multilock.New([]lockkit.Locker{a, b})
				return Owner{Locker: m, Parts: []redistest.Held{a, b}, Force: m.ForceUnlock}
			},
		},
		redlock(),
		{
			// One permit: its owners exclude each other.
			Name:    "semaphore",
			Names:   OwnName,
			Once:    true,
			Servers: 1,
			Owner: func(nodes []*lockkit.Client, n string, _ int) Owner {
				h := lockers.NewPermits(semaphore.New(nodes[0], n, 1), 1)
				return Owner{Locker: h, Parts: []redistest.Held{h}}
			},
		},
		{
			// Each owner is a candidate; the leader holds the lock.
			Name:    "election",
			Names:   OwnName,
			Once:    true,
			Servers: 1,
			Owner: func(nodes []*lockkit.Client, n string, i int) Owner {
				e := election.New(nodes[0], n)
				h := lockers.NewCandidate(e, CandidateValue(i))
				return Owner{Locker: h, Parts: []redistest.Held{h}, Force: e.ForceUnlock}
			},
		},
	}
}

// Latch is the kind of a latch: a latch is not a lock, so it has no
// owner and is not in the table of Kinds.
func Latch() Kind { return Kind{Name: "latch", Names: OwnName, Servers: 1} }

// CandidateValue is the value the i-th owner of an election campaigns
// with.
func CandidateValue(i int) string { return "owner " + strconv.Itoa(i) }

// OwnName is the Names of a kind whose lock uses its own name alone.
func OwnName(n string) []string { return []string{n} }

// single makes a kind of a lock of one server that is its own only part;
// force is its ForceUnlock, nil for none.
func single[L interface {
	lockkit.Locker
	redistest.Held
}](name string, newLock func(c *lockkit.Client, name string) L, force func(L) func(context.Context) (bool, error)) Kind {
	return Kind{
		Name:    name,
		Names:   OwnName,
		Servers: 1,
		Owner: func(nodes []*lockkit.Client, n string, _ int) Owner {
			l := newLock(nodes[0], n)
			o := Owner{Locker: l, Parts: []redistest.Held{l}}
			if force != nil {
				o.Force = force(l)
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

// cohort is the kind of a reentrant lock in cohort mode, whose holds are
// kept in memory for at most hold.
func cohort(hold time.Duration) Kind {
	k := single("reentrant cohort", func(c *lockkit.Client, n string) *reentrant.Mutex {
		return reentrant.New(c, n, reentrant.WithLocalHandoff(4, hold))
	}, forceOf)
	k.Cohort = true
	return k
}

// redlock is the kind of a RedLock over three masters.
func redlock() Kind {
	return Kind{
		Name:    "redlock",
		Names:   OwnName,
		Polls:   true,
		Servers: 3,
		Owner: func(nodes []*lockkit.Client, n string, _ int) Owner {
			l := multilock.NewRedLock(nodes, n)
			return Owner{Locker: l, Parts: []redistest.Held{l}}
		},
	}
}

// spinKind is the kind of a spin lock.
func spinKind() Kind {
	k := single("spin", func(c *lockkit.Client, n string) *spin.Mutex {
		return spin.New(c, n, spin.WithBackoff(time.Millisecond, 16*time.Millisecond))
	}, forceOf)
	k.Polls = true
	return k
}

// kindNamed returns the kind of ks called name.
func kindNamed(ks []Kind, name string) (Kind, bool) {
	for _, k := range ks {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}
