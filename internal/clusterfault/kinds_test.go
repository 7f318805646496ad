package clusterfault_test

import (
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/lockers"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/spin"
)

// newLock makes an owner of the lock name on c.
type newLock func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker

// kind is a lock kind as the tests take it: the holder's side and the
// side of the owners that wait for the holder.
type kind struct {
	name           string
	holder, waiter newLock
	// members are the Redis lock names a lock called name uses: its own,
	// or its members' for a multi-lock, whose names on distinct masters
	// the test draws (see drawName).
	members func(name string) []string
	// shared is set when the waiters may hold together once the holder
	// is gone: a semaphore's, each waiting for one of the permits the
	// holder gives back.
	shared bool
}

// semPermits is the number of permits of the tests' semaphores: the
// holder takes them all, each waiter waits for one.
const semPermits = 2

// single is the names of a lock that is its own only part.
func single(name string) []string { return []string{name} }

// memberNames are the names of a multi-lock's two members.
func memberNames(name string) []string { return []string{name + ":a", name + ":b"} }

// kinds are every kind with a holder, in one table shared by the tests.
func kinds() []kind {
	newRW := func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
		return rwlock.New(c, name, opts...)
	}
	return []kind{
		{name: "reentrant", holder: newReentrant, waiter: newReentrant, members: single},
		{name: "reentrant-cohort", holder: newCohort, waiter: newCohort, members: single},
		{name: "fair", holder: newFair, waiter: newFair, members: single},
		{name: "spin", holder: newSpin, waiter: newSpin, members: single},
		{name: "rwlock", holder: newRW, waiter: newRW, members: single},
		{name: "rwlock-read", holder: newReader, waiter: newRW, members: single},
		{name: "multilock", holder: newMulti, waiter: newMulti, members: memberNames},
		{
			name:    "semaphore",
			holder:  permits(semPermits),
			waiter:  permits(1),
			members: single,
			shared:  true,
		},
		{name: "election", holder: candidate("the holder"), waiter: candidate("a waiter"), members: single},
	}
}

func newReentrant(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
	return reentrant.New(c, name, opts...)
}

// newCohort makes a reentrant lock in cohort mode, whose Mutexes of one
// Client hand the hold over in memory.
func newCohort(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
	return reentrant.New(c, name, append([]lockkit.Option{reentrant.WithLocalHandoff(4, 250*time.Millisecond)}, opts...)...)
}

func newFair(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
	return fair.New(c, name, opts...)
}

// newSpin makes a spin lock whose backoff is short enough for the tests.
func newSpin(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
	return spin.New(c, name, append([]lockkit.Option{spin.WithBackoff(time.Millisecond, 8*time.Millisecond)}, opts...)...)
}

// newReader makes the read side of an rwlock.
func newReader(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
	return lockers.Reader{RWMutex: rwlock.New(c, name, opts...)}
}

// newMulti makes a multi-lock of two reentrant members (see memberNames).
func newMulti(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
	var ms []lockkit.Locker
	for _, n := range memberNames(name) {
		ms = append(ms, reentrant.New(c, n, opts...))
	}
	return multilock.New(ms)
}

// permits returns the constructor of a semaphore owner taking n of its
// semPermits permits.
func permits(n int) newLock {
	return func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
		return lockers.NewPermits(semaphore.New(c, name, semPermits, opts...), n)
	}
}

// candidate returns the constructor of a candidate of an election that
// campaigns with value.
func candidate(value string) newLock {
	return func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
		return lockers.NewCandidate(election.New(c, name, opts...), value)
	}
}
