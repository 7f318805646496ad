package semaphore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestAcquire_across_a_Redis_restart restarts the server, empty, under a
// holder of the only permit while another Client waits: the holder learns
// it lost its permit, the waiter takes it with a larger token (tokens
// outlive the lost counter), and the old holder's Release reports the
// loss.
func TestAcquire_across_a_Redis_restart(t *testing.T) {
	s := redistest.StartServer(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	name := redistest.Unique(t)
	opt := lockkit.WithWatchdogTimeout(time.Second)
	a, err := semaphore.New(redistest.Lockkit(t, s.Client(t)), name, 1, opt).Acquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	bc := redistest.Lockkit(t, s.Client(t))
	got := make(chan *semaphore.Permits, 1)
	acquireTo(ctx, t, semaphore.New(bc, name, 1, opt), 1, got)
	waitSleeping(t, s.Client(t), bc, name, 1)

	s.Restart(t)
	redistest.Receive(t, a.Lost(), redistest.Hang, "the holder to learn of its loss")
	b := served(t, got, "the waiter to take the permit")
	if b.Token() <= a.Token() {
		t.Fatalf("token %d after %d", b.Token(), a.Token())
	}
	if err := a.Release(ctx); !errors.Is(err, lockkit.ErrLost) {
		t.Fatalf("Release of the lost permit = %v, want ErrLost", err)
	}
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestAcquire_with_a_fixed_lease_across_a_Redis_restart: the holder of
// permits with a fixed lease of 9 s is told of a restart that lost them
// within about a third of the lease, as a renewed holder is at its next
// renewal, not at the lease's end; its Release then reports the loss.
func TestAcquire_with_a_fixed_lease_across_a_Redis_restart(t *testing.T) {
	const lease = 9 * time.Second
	s := redistest.StartServer(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	sem := semaphore.New(redistest.Lockkit(t, s.Client(t)), redistest.Unique(t), 2, lockkit.WithLease(lease))
	a, err := sem.Acquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.Restart(t)
	redistest.Receive(t, a.Lost(), lease/2, "the holder to learn of its loss") // the lease ends at 9 s
	redistest.WantErr(t, a.Release(ctx), lockkit.ErrLost)
}
