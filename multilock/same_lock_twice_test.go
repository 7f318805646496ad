package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestMutex_one_lock_twice_under_two_owners_is_never_held checks what the
// package documents of two lock values of one name on one Cluster: under
// two owners they are two owners of one lock, so TryLock says false and
// Lock fails when its ctx ends, each leaving nothing held; under one owner
// (WithOwner) the second re-enters the first's hold, and Unlock frees it.
func TestMutex_one_lock_twice_under_two_owners_is_never_held(t *testing.T) {
	cc := redistest.StartCluster(t).Client(t)
	c := redistest.Lockkit(t, cc)
	name := redistest.Unique(t)
	m := multilock.New([]lockkit.Locker{reentrant.New(c, name), reentrant.New(c, name)})
	if ok, err := m.TryLock(redistest.Ctx(t, redistest.Hang)); ok || err != nil {
		t.Fatalf("TryLock = %v, %v; want false", ok, err)
	}
	givenBack(t, cc, name)
	redistest.WantErr(t, m.Lock(redistest.Ctx(t, 300*time.Millisecond)), lockkit.ErrNotObtained, context.DeadlineExceeded)
	givenBack(t, cc, name)

	one := lockkit.WithOwner("one-" + name)
	shared := reentrant.New(c, name, one)
	m = multilock.New([]lockkit.Locker{shared, reentrant.New(c, name, one)})
	redistest.MustLock(t, m)
	redistest.WantHoldCount(t, shared, 2)
	redistest.MustUnlock(t, m)
	givenBack(t, cc, name)
}
