package multilock_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// BenchmarkMutex_uncontended locks and unlocks a Mutex of n free reentrant
// locks on one server: n acquires and n releases.
func BenchmarkMutex_uncontended(b *testing.B) {
	s := redistest.StartServer(b)
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("locks=%d", n), func(b *testing.B) {
			rc := s.Client(b)
			counter := redistest.CountCommands(rc)
			c := redistest.Lockkit(b, rc)
			var locks []lockkit.Locker
			for range n {
				locks = append(locks, reentrant.New(c, redistest.Unique(b)))
			}
			redistest.BenchLockUnlock(b, multilock.New(locks), counter)
		})
	}
}

// BenchmarkRedLock_uncontended locks and unlocks a free RedLock over n
// masters: one acquire and one release per node, sent to all at once.
func BenchmarkRedLock_uncontended(b *testing.B) {
	for _, n := range []int{3, 5} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			clients, counter := countedMasters(b, n)
			redistest.BenchLockUnlock(b, multilock.NewRedLock(clients, redistest.Unique(b)), counter)
		})
	}
}

// BenchmarkRedLock_contended has 4 owners take one RedLock over 5 masters
// b.N times in all, holding it for 100 µs, and reports the commands sent
// per acquisition over all nodes.
func BenchmarkRedLock_contended(b *testing.B) {
	const owners, hold = 4, 100 * time.Microsecond
	clients, counter := countedMasters(b, 5)
	name := redistest.Unique(b)
	redistest.BenchContended(b, owners, hold, func() redistest.Locker { return multilock.NewRedLock(clients, name) }, counter)
}

// countedMasters starts n independent servers and returns a lockkit
// Client of each, whose commands one counter counts.
func countedMasters(b *testing.B, n int) ([]*lockkit.Client, *redistest.Counter) {
	_, clients := masters(b, n)
	counter := redistest.NewCounter()
	for _, c := range clients {
		c.(*redis.Client).AddHook(counter.Hook())
	}
	return lockkits(b, clients), counter
}
