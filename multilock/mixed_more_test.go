package multilock_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/rwlock"
)

// The fair mutex and the write side of the read-write mutex are Lockers.
var (
	_ multilock.Locker = (*fair.Mutex)(nil)
	_ multilock.Locker = (*rwlock.RWMutex)(nil)
)

func init() {
	moreKinds = append(moreKinds,
		func(t *testing.T, c *redis.Client) kind {
			return kind{"fair", []redis.UniversalClient{c}, func(t *testing.T, n string) multilock.Locker { return fair.New(c, n) }}
		},
		func(t *testing.T, c *redis.Client) kind {
			return kind{"rwlock", []redis.UniversalClient{c}, func(t *testing.T, n string) multilock.Locker { return rwlock.New(c, n) }}
		},
	)
}
