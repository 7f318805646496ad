package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
)

// exclusive is what the test needs of a lock: the write side of every
// kind.
type exclusive interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
	Token() int64
}

// exclusiveKind makes locks of one kind and tells whether one waits.
type exclusiveKind struct {
	name string
	// make returns a lock of the kind for owner.
	make func(c *lockkit.Client, name, owner string) exclusive
	// waiting reports whether the waiter is waiting in Redis
	// (queued, subscribed); spin waiters leave no trace.
	waiting func(t *testing.T, prefix, name string) bool
}

// exclusiveKinds returns every kind with an exclusive side, for the locks
// of rc.
func exclusiveKinds(rc redis.UniversalClient) []exclusiveKind {
	return []exclusiveKind{
		{"reentrant", func(c *lockkit.Client, name, owner string) exclusive {
			return reentrant.New(c, name, lockkit.WithOwner(owner))
		}, func(t *testing.T, prefix, name string) bool {
			return reentrantWaiting(t, rc, prefix, name)
		}},
		{"spin", func(c *lockkit.Client, name, owner string) exclusive {
			return spin.New(c, name, lockkit.WithOwner(owner))
		}, func(*testing.T, string, string) bool { return true }},
		{"fair", func(c *lockkit.Client, name, owner string) exclusive {
			return fair.New(c, name, lockkit.WithOwner(owner))
		}, func(t *testing.T, prefix, name string) bool {
			return numSub(t, rc, keys(prefix, name).Sub("ch")+":waiter") == 1
		}},
		{"rwlock", func(c *lockkit.Client, name, owner string) exclusive {
			return rwlock.New(c, name, lockkit.WithOwner(owner))
		}, func(t *testing.T, prefix, name string) bool {
			return writersWaiting(t, rc, prefix, name)
		}},
	}
}
