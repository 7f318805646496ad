package soak_test

import (
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

// owner is one owner of a lock as the rounds drive it.
type owner struct {
	lockkit.Locker
	// parts are the locks whose holds a Lock takes: the members of a
	// multi-lock, else the owner itself.
	parts []redistest.Held
}

// lost returns the lost signals of the current holds; call it after Lock.
func (o owner) lost() []<-chan struct{} { return redistest.LostOf(o.parts) }

// kind is a lock kind of the soak.
type kind struct {
	name string
	// owner returns the i-th owner of the lock called name on the Clients
	// nodes of one side (one Client per server). Owners of one name
	// exclude each other, but for the read side of an rwlock, whose owner
	// 0 reads and the others write. Nil for a latch, whose rounds are
	// Awaits and a count-down.
	owner func(nodes []*lockkit.Client, name string, i int) owner
	// cohort is set for cohort mode (reentrant.WithLocalHandoff), whose
	// owners on one side share its hold and wait for it in memory.
	cohort bool
	// polls is set for the kinds whose waiters sleep by backoff instead of
	// waiting for a release on pub/sub (spin, RedLock).
	polls bool
	// servers is how many redis-servers the kind's lock spans: one, but
	// for RedLock, whose masters must be independent.
	servers int
	// observed is set for an election, which a side's observer watches
	// across the whole loop.
	observed bool
}

// single makes a kind of a lock that is its own only part, on the first
// server.
func single[L interface {
	lockkit.Locker
	redistest.Held
}](name string, newLock func(c *lockkit.Client, name string) L) kind {
	return kind{
		name: name,
		owner: func(nodes []*lockkit.Client, n string, _ int) owner {
			l := newLock(nodes[0], n)
			return owner{Locker: l, parts: []redistest.Held{l}}
		},
	}
}

// kinds are the kinds of the soak.
func kinds() []kind {
	cohort := single("reentrant cohort", func(c *lockkit.Client, n string) *reentrant.Mutex {
		return reentrant.New(c, n, reentrant.WithLocalHandoff(4, lease/4))
	})
	cohort.cohort = true
	spinKind := single("spin", func(c *lockkit.Client, n string) *spin.Mutex {
		return spin.New(c, n, spin.WithBackoff(time.Millisecond, 16*time.Millisecond))
	})
	spinKind.polls = true
	elect := kind{
		// Each owner is a candidate; the leader holds the lock.
		name:     "election",
		observed: true,
		owner: func(nodes []*lockkit.Client, n string, i int) owner {
			h := lockers.NewCandidate(election.New(nodes[0], n), candidateValue(i))
			return owner{Locker: h, parts: []redistest.Held{h}}
		},
	}
	return []kind{
		single("reentrant", func(c *lockkit.Client, n string) *reentrant.Mutex { return reentrant.New(c, n) }),
		cohort,
		single("fair", func(c *lockkit.Client, n string) *fair.Mutex { return fair.New(c, n) }),
		spinKind,
		single("rwlock write", func(c *lockkit.Client, n string) *rwlock.RWMutex { return rwlock.New(c, n) }),
		{
			name: "rwlock read",
			owner: func(nodes []*lockkit.Client, n string, i int) owner {
				m := rwlock.New(nodes[0], n)
				if i > 0 {
					return owner{Locker: m, parts: []redistest.Held{m}}
				}
				r := lockers.Reader{RWMutex: m}
				return owner{Locker: r, parts: []redistest.Held{r}}
			},
		},
		{
			name: "multilock",
			owner: func(nodes []*lockkit.Client, n string, _ int) owner {
				a, b := reentrant.New(nodes[0], n+":a"), fair.New(nodes[0], "b:"+n)
				return owner{Locker: multilock.New([]lockkit.Locker{a, b}), parts: []redistest.Held{a, b}}
			},
		},
		{
			name:    "redlock",
			servers: 3,
			polls:   true,
			owner: func(nodes []*lockkit.Client, n string, _ int) owner {
				l := multilock.NewRedLock(nodes, n)
				return owner{Locker: l, parts: []redistest.Held{l}}
			},
		},
		{
			// One permit: its owners exclude each other.
			name: "semaphore",
			owner: func(nodes []*lockkit.Client, n string, _ int) owner {
				h := lockers.NewPermits(semaphore.New(nodes[0], n, 1), 1)
				return owner{Locker: h, parts: []redistest.Held{h}}
			},
		},
		elect,
		{name: "latch"},
	}
}

// candidateValue is the value the i-th candidate of an election campaigns
// with.
func candidateValue(i int) string { return "owner " + strconv.Itoa(i) }
