package rwlock_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
)

// benchOwners is the number of goroutines, each its own owner, that share
// one lock in the benchmarks.
const benchOwners = 64

// benchClient starts a redis-server and returns a Client of it whose pool
// serves every goroutine at once.
func benchClient(b *testing.B) *lockkit.Client {
	s := redistest.StartServer(b)
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), PoolSize: 2 * benchOwners})
	b.Cleanup(func() { _ = c.Close() })
	return redistest.Lockkit(b, c)
}

// BenchmarkRLock_64_readers measures read acquisitions (RLock + RUnlock)
// per second by 64 owners sharing one lock.
func BenchmarkRLock_64_readers(b *testing.B) {
	c := benchClient(b)
	name := redistest.Unique(b)
	redistest.BenchContended(b, benchOwners, 0, func() redistest.Locker { return rwlock.New(c, name).RLocker() }, nil)
}

// BenchmarkLock_64_writers measures write acquisitions per second by 64
// owners contending for one lock.
func BenchmarkLock_64_writers(b *testing.B) {
	c := benchClient(b)
	name := redistest.Unique(b)
	redistest.BenchContended(b, benchOwners, 0, func() redistest.Locker { return rwlock.New(c, name) }, nil)
}

// BenchmarkReentrant_64_owners is the baseline: the reentrant (exclusive)
// lock's acquisitions per second by 64 owners contending for one lock.
func BenchmarkReentrant_64_owners(b *testing.B) {
	c := benchClient(b)
	name := redistest.Unique(b)
	redistest.BenchContended(b, benchOwners, 0, func() redistest.Locker { return reentrant.New(c, name) }, nil)
}

// BenchmarkUncontended locks and unlocks one free lock, for writing and
// for reading: two round trips per cycle. It reports the commands sent and
// the server's CPU per cycle (compare reentrant's BenchmarkFloor_uncontended).
func BenchmarkUncontended(b *testing.B) {
	for _, side := range []struct {
		name string
		lock func(*rwlock.RWMutex) redistest.Locker
	}{
		{"write", func(m *rwlock.RWMutex) redistest.Locker { return m }},
		{"read", func(m *rwlock.RWMutex) redistest.Locker { return m.RLocker() }},
	} {
		b.Run(side.name, func(b *testing.B) {
			c := redistest.StartServer(b).Client(b)
			counter := redistest.CountCommands(c)
			m := rwlock.New(redistest.Lockkit(b, c), redistest.Unique(b))
			redistest.BenchLockUnlock(b, side.lock(m), counter)
		})
	}
}
