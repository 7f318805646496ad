package pausefault_test

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

// fairWaiterTimeout is the waiter timeout of the fair locks (the fair
// kind, the fair member of the multi-lock); a semaphore's is always
// semaphoreWaiterTimeout (README, "Semaphores").
const (
	fairWaiterTimeout      = time.Second
	semaphoreWaiterTimeout = 5 * time.Second
)

// owner is one owner of a lock as the tests drive it.
type owner struct {
	lockkit.Locker
	// parts are the locks whose holds a Lock takes: the members of a
	// multi-lock, else the owner itself.
	parts []redistest.Held
}

// lost returns the lost signals of the current holds; call it after Lock.
func (o owner) lost() []<-chan struct{} { return redistest.LostOf(o.parts) }

// tokens returns the fencing tokens of the current holds.
func (o owner) tokens() []int64 { return redistest.TokensOf(o.parts) }

// kind is a lock kind of the tests.
type kind struct {
	name string
	// owner returns the i-th owner of the lock called name, on nodes (one
	// Client per server, the kinds of one server using nodes[0]). Owners
	// of one name exclude each other, but for the read side of an rwlock,
	// whose owner 0 reads and the others write.
	owner func(nodes []*lockkit.Client, name string, i int) owner
	// names are the Redis lock names a lock called name uses.
	names func(name string) []string
	// lapse is, for the kinds whose waiters hold a place in a queue in
	// Redis, how long after the last attempt of a waiter first in line
	// that never comes the others may wait: a release wakes it alone, and
	// its place lapses a waiter timeout after its last attempt. A fair
	// waiter behind it caps its sleep at that moment; a semaphore's finds
	// the place lapsed at its next attempt, which it makes every third of
	// the waiter timeout (README, "The fair lock" and "Semaphores"). 0 for
	// the other kinds.
	lapse time.Duration
	// polls is set for the kinds whose waiters sleep by backoff instead of
	// waiting on pub/sub for a release (spin, RedLock): they have no place
	// in line.
	polls bool
	// servers is how many redis-servers the kind's lock spans.
	servers int
}

// single makes a kind of a lock that is its own only part.
func single[L interface {
	lockkit.Locker
	redistest.Held
}](name string, newLock func(c *lockkit.Client, name string) L) kind {
	return kind{
		name:    name,
		names:   func(n string) []string { return []string{n} },
		servers: 1,
		owner: func(nodes []*lockkit.Client, n string, _ int) owner {
			l := newLock(nodes[0], n)
			return owner{Locker: l, parts: []redistest.Held{l}}
		},
	}
}

// kinds are the lock kinds of the tests.
func kinds() []kind {
	fairKind := single("fair", func(c *lockkit.Client, n string) *reentrant.Mutex {
		return fair.New(c, n, fair.WithWaiterTimeout(fairWaiterTimeout))
	})
	fairKind.lapse = fairWaiterTimeout
	sem := single("semaphore", func(c *lockkit.Client, n string) *lockers.Permits {
		// One permit: its owners exclude each other.
		return lockers.NewPermits(semaphore.New(c, n, 1), 1)
	})
	sem.lapse = semaphoreWaiterTimeout + semaphoreWaiterTimeout/3
	redlock := kind{
		name:    "redlock",
		names:   func(n string) []string { return []string{n} },
		servers: 3, // independent masters
		polls:   true,
		owner: func(nodes []*lockkit.Client, n string, _ int) owner {
			l := multilock.NewRedLock(nodes, n)
			return owner{Locker: l, parts: []redistest.Held{l}}
		},
	}
	return []kind{
		single("reentrant", func(c *lockkit.Client, n string) *reentrant.Mutex { return reentrant.New(c, n) }),
		single("reentrant cohort", func(c *lockkit.Client, n string) *reentrant.Mutex {
			return reentrant.New(c, n, reentrant.WithLocalHandoff(4, 250*time.Millisecond))
		}),
		fairKind,
		spinKind(),
		single("rwlock write", func(c *lockkit.Client, n string) *rwlock.RWMutex { return rwlock.New(c, n) }),
		{
			name:    "rwlock read",
			names:   func(n string) []string { return []string{n} },
			servers: 1,
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
			name:    "multilock",
			names:   func(n string) []string { return []string{n + ":a", "b:" + n} },
			servers: 1,
			owner: func(nodes []*lockkit.Client, n string, _ int) owner {
				a := reentrant.New(nodes[0], n+":a")
				b := fair.New(nodes[0], "b:"+n, fair.WithWaiterTimeout(fairWaiterTimeout))
				return owner{Locker: multilock.New([]lockkit.Locker{a, b}), parts: []redistest.Held{a, b}}
			},
		},
		redlock,
		sem,
		{
			// Each owner is a candidate; the leader holds the lock.
			name:    "election",
			names:   func(n string) []string { return []string{n} },
			servers: 1,
			owner: func(nodes []*lockkit.Client, n string, i int) owner {
				h := lockers.NewCandidate(election.New(nodes[0], n), "owner "+strconv.Itoa(i))
				return owner{Locker: h, parts: []redistest.Held{h}}
			},
		},
	}
}

// kindNamed returns the kind called name.
func kindNamed(name string) (kind, bool) {
	for _, k := range kinds() {
		if k.name == name {
			return k, true
		}
	}
	return kind{}, false
}

// spinKind is the kind of a spin lock.
func spinKind() kind {
	k := single("spin", func(c *lockkit.Client, n string) *spin.Mutex {
		return spin.New(c, n, spin.WithBackoff(time.Millisecond, 16*time.Millisecond))
	})
	k.polls = true
	return k
}
