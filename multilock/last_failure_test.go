package multilock_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLock_error_includes_a_member_s_failure_when_its_wait_ends: a
// Mutex's member is a RedLock two of whose three nodes are down, so its
// own Lock waits until its ctx ends (or its bounded wait runs out) and
// then fails with ErrQuorum as its last failure. The Mutex's Lock error,
// when its ctx ends, includes that failure: it matches ErrNotObtained,
// DeadlineExceeded and ErrQuorum, with or without WithLockWait. A member
// that is only busy adds no failure to the error.
func TestLock_error_includes_a_member_s_failure_when_its_wait_ends(t *testing.T) {
	servers, clients := masters(t, 3)
	lcs := lockkits(t, clients)
	u := redistest.Unique(t)
	a := reentrant.New(lcs[0], "a-"+u)
	red := multilock.NewRedLock(lcs, "b-"+u, multilock.WithNodeTimeout(50*time.Millisecond))
	servers[1].Kill(t)
	servers[2].Kill(t)
	for _, tc := range []struct {
		name string
		opts []lockkit.Option
	}{
		{"unbounded wait", nil},
		{"WithLockWait", []lockkit.Option{multilock.WithLockWait(100 * time.Millisecond)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := multilock.New([]lockkit.Locker{a, red}, tc.opts...)
			err := m.Lock(redistest.Ctx(t, 500*time.Millisecond))
			redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded, lockkit.ErrQuorum)
			givenBack(t, clients[0], a.Name())
		})
	}

	other := reentrant.New(lcs[0], "c-"+u)
	redistest.MustLock(t, other)
	m := multilock.New([]lockkit.Locker{a, reentrant.New(lcs[0], "c-"+u)}, multilock.WithLockWait(20*time.Millisecond))
	err := m.Lock(redistest.Ctx(t, 200*time.Millisecond))
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	if strings.Contains(err.Error(), "last failure") {
		t.Fatalf("Lock behind a busy member = %v; want no failure", err)
	}
	givenBack(t, clients[0], a.Name())
	redistest.MustUnlock(t, other)
}
