package faultmatrix_test

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

// permits is the number of permits of the matrix's semaphores: the
// checker lets two holders in at once and counts a third as an overlap.
const permits = 2

// The bounds of the cohort kind's hand-overs: a few in a row, so that the
// process also gives the hold back in Redis often, to another process.
const (
	handoffs    = 4
	handoffHold = lease / 4
)

// owner is one owner of a lock as the matrix drives it.
type owner struct {
	lockkit.Locker
	// read is set for the read side of an rwlock, which other readers
	// share.
	read bool
	// parts are the locks whose holds a Lock takes: the members of a
	// multi-lock, else the owner itself; each has a lost signal and a
	// token.
	parts []hold
}

// hold is what the checker and the runs need of one held lock.
type hold = redistest.Held

// lost returns the lost signals of the current holds; call it after Lock.
func (o owner) lost() []<-chan struct{} { return redistest.LostOf(o.parts) }

// tokens returns the fencing tokens of the current holds.
func (o owner) tokens() []int64 { return redistest.TokensOf(o.parts) }

// kind is a lock kind of the matrix.
type kind struct {
	name string
	// names are the Redis lock names a lock called name uses, in the order
	// of an owner's parts.
	names func(name string) []string
	// owner returns the i-th owner of the lock called name; the victim is
	// owner 0.
	owner func(c *lockkit.Client, name string, i int) owner
	// permits is how many owners may hold the lock at once; 0 means 1
	// (an exclusive lock, or the write side of an rwlock).
	permits int
	// cohort is set for cohort mode (reentrant.WithLocalHandoff), where
	// the owners of one Client share its hold in Redis and hand it over in
	// memory. Each process of a cell then has several owners of the lock:
	// the workers run on two Clients, the victim's Client (the holder
	// child's process) has a worker besides the victim, and the cell waits
	// for hand-overs after the fault.
	cohort bool
}

// single makes a kind of a lock that is its own only part.
func single[L interface {
	lockkit.Locker
	hold
}](name string, newLock func(c *lockkit.Client, name string) L) kind {
	return kind{
		name:  name,
		names: func(n string) []string { return []string{n} },
		owner: func(c *lockkit.Client, n string, _ int) owner {
			l := newLock(c, n)
			return owner{Locker: l, parts: []hold{l}}
		},
	}
}

// kinds are the lock kinds of the matrix.
func kinds() []kind {
	return []kind{
		single("reentrant", func(c *lockkit.Client, n string) *reentrant.Mutex { return reentrant.New(c, n) }),
		{
			name:   "reentrant cohort",
			names:  func(n string) []string { return []string{n} },
			cohort: true,
			owner: func(c *lockkit.Client, n string, _ int) owner {
				m := reentrant.New(c, n, reentrant.WithLocalHandoff(handoffs, handoffHold))
				return owner{Locker: m, parts: []hold{m}}
			},
		},
		single("fair", func(c *lockkit.Client, n string) *fair.Mutex { return fair.New(c, n) }),
		single("spin", func(c *lockkit.Client, n string) *spin.Mutex {
			return spin.New(c, n, spin.WithBackoff(time.Millisecond, 16*time.Millisecond))
		}),
		single("rwlock write", func(c *lockkit.Client, n string) *rwlock.RWMutex { return rwlock.New(c, n) }),
		{
			// The victim and every other owner read; the others write.
			name:  "rwlock read",
			names: func(n string) []string { return []string{n} },
			owner: func(c *lockkit.Client, n string, i int) owner {
				m := rwlock.New(c, n)
				if i%2 == 1 {
					return owner{Locker: m, parts: []hold{m}}
				}
				r := lockers.Reader{RWMutex: m}
				return owner{Locker: r, read: true, parts: []hold{r}}
			},
		},
		{
			name: "multilock",
			names: func(n string) []string {
				a, b := members(n)
				return []string{a, b}
			},
			owner: func(c *lockkit.Client, n string, _ int) owner {
				an, bn := members(n)
				a, b := reentrant.New(c, an), reentrant.New(c, bn)
				return owner{Locker: multilock.New([]lockkit.Locker{a, b}), parts: []hold{a, b}}
			},
		},
		{
			// Each owner acquires one of the semaphore's permits.
			name:    "semaphore",
			names:   func(n string) []string { return []string{n} },
			permits: permits,
			owner: func(c *lockkit.Client, n string, _ int) owner {
				h := lockers.NewPermits(semaphore.New(c, n, permits), 1)
				return owner{Locker: h, parts: []hold{h}}
			},
		},
		{
			// Each owner is a candidate; the leader holds the lock.
			name:  "election",
			names: func(n string) []string { return []string{n} },
			owner: func(c *lockkit.Client, n string, i int) owner {
				h := lockers.NewCandidate(election.New(c, n), "owner "+strconv.Itoa(i))
				return owner{Locker: h, parts: []hold{h}}
			},
		},
	}
}

// members are the names of the two members of the multi-lock called n.
// The second is not the first with another last byte: the Cluster slots
// of two names of one length that differ in one byte differ by a fixed
// XOR (CRC16 is linear), which keeps such names off the one master whose
// failover the Cluster rows inject.
func members(n string) (string, string) { return n + ":a", "b:" + n }

// kindNamed returns the kind called name.
func kindNamed(name string) (kind, bool) {
	for _, k := range kinds() {
		if k.name == name {
			return k, true
		}
	}
	return kind{}, false
}
