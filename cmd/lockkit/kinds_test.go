package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
)

// kinds holds one lock of each kind, under a prefix of its own: a
// reentrant lock held twice, a spin lock, a fair lock with a waiter in its
// queue, and a read-write lock with two readers and a waiting writer.
type kinds struct {
	lc                        *lockkit.Client // the Client of every lock
	prefix                    string
	re, sp, fa, rw            string // the names
	reM, spM, faM, faWaiter   *reentrant.Mutex
	reader1, reader2, writerW *rwlock.RWMutex
}

// holdEveryKind takes the locks of kinds; on a Cluster the first three
// live on distinct masters.
func holdEveryKind(t *testing.T, rc redis.UniversalClient) *kinds {
	t.Helper()
	c, prefix := prefixed(t, rc)
	n := append(names(t, rc, 3), redistest.Unique(t))
	k := &kinds{lc: c, prefix: prefix, re: n[0], sp: n[1], fa: n[2], rw: n[3]}
	k.reM = reentrant.New(c, k.re, lockkit.WithOwner("re-owner"))
	redistest.MustLock(t, k.reM)
	redistest.MustLock(t, k.reM)
	k.spM = spin.New(c, k.sp, lockkit.WithOwner("spin-owner"))
	redistest.MustLock(t, k.spM)
	k.faM = fair.New(c, k.fa, lockkit.WithOwner("fair-owner"))
	redistest.MustLock(t, k.faM)
	k.faWaiter = fair.New(c, k.fa, lockkit.WithOwner("fair-waiter"))
	waitInBackground(t, k.faWaiter.Lock)
	k.reader1 = rwlock.New(c, k.rw, lockkit.WithOwner("reader-1"))
	k.reader2 = rwlock.New(c, k.rw, lockkit.WithOwner("reader-2"))
	k.writerW = rwlock.New(c, k.rw, lockkit.WithOwner("writer"))
	for _, r := range []*rwlock.RWMutex{k.reader1, k.reader2} {
		if err := r.RLock(redistest.Ctx(t, 10*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	waitInBackground(t, k.writerW.Lock)
	ctx := redistest.Ctx(t, 10*time.Second)
	redistest.Eventually(t, 10*time.Second, "the fair waiter queued and the writer's intent, asleep", func() bool {
		q, _ := rc.ZCard(ctx, keys(prefix, k.fa).Sub("waiters")).Result()
		w, _ := rc.ZCard(ctx, keys(prefix, k.rw).Sub("writers")).Result()
		return q == 1 && w == 1 && c.Notifier().Sleeping(core.SleepChannel(c, keys(prefix, k.rw).Sub("wch"))) == 1
	})
	return k
}

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
