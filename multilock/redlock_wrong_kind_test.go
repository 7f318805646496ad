package multilock_test

import (
	"errors"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestRedLock_name_is_kept_from_other_kinds_on_each_node: while a RedLock
// holds a name, a reentrant lock of that name on one of its nodes fails
// with ErrWrongKind; while reentrant locks hold the name on a majority of
// the nodes, the RedLock's Lock returns ErrWrongKind at once (another
// round cannot cure it) instead of waiting until its ctx ends, TryLock
// returns it too, and neither leaves a part taken on the free node.
func TestRedLock_name_is_kept_from_other_kinds_on_each_node(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	clients, lcs, name := threeNodes(t)
	r := multilock.NewRedLock(lcs, name)
	redistest.MustLock(t, r)
	_, err := reentrant.New(lcs[0], name).TryLock(ctx)
	redistest.WantErr(t, err, lockkit.ErrWrongKind)
	redistest.MustUnlock(t, r)
	assertCleanAll(t, clients, name)

	var others []*reentrant.Mutex
	for _, lc := range lcs[:2] {
		m := reentrant.New(lc, name)
		redistest.MustLock(t, m)
		others = append(others, m)
	}
	err = r.Lock(ctx)
	redistest.WantErr(t, err, lockkit.ErrWrongKind)
	if errors.Is(err, lockkit.ErrNotObtained) {
		t.Fatalf("Lock = %v; want ErrWrongKind at once, not a wait that ran out", err)
	}
	wantTryLockFails(t, r, lockkit.ErrWrongKind)
	waitFreeOn(t, clients[2], name, "the part on the free node to be given back")
	for _, m := range others {
		redistest.MustUnlock(t, m)
	}
	redistest.MustLock(t, r)
	redistest.MustUnlock(t, r)
	assertCleanAll(t, clients, name)
}
