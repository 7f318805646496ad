package main

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
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

// holdEveryKind takes the locks of kinds in the fixture's own process,
// under its prefix; on a Cluster the first three live on distinct masters.
func holdEveryKind(t *testing.T, f *fixture) *kinds {
	t.Helper()
	rc, c, prefix := f.rc, f.lc, f.prefix
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
	waitingInBackground(t, "the fair waiter to queue", k.faWaiter.Lock, func() bool {
		return zcard(t, rc, keys(prefix, k.fa).Sub("waiters")) == 1
	})
	k.reader1 = rwlock.New(c, k.rw, lockkit.WithOwner("reader-1"))
	k.reader2 = rwlock.New(c, k.rw, lockkit.WithOwner("reader-2"))
	k.writerW = rwlock.New(c, k.rw, lockkit.WithOwner("writer"))
	for _, r := range []*rwlock.RWMutex{k.reader1, k.reader2} {
		if err := r.RLock(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitingInBackground(t, "the writer's intent", k.writerW.Lock, func() bool {
		return zcard(t, rc, keys(prefix, k.rw).Sub("writers")) == 1
	})
	return k
}
