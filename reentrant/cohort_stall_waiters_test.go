package reentrant_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_a_stall_past_the_lease_tells_the_holder_before_any_waiter_gets_the_lock:
// a Mutex in cohort mode holds the process's hold by hand-over, another
// Mutex of the process waits in memory and another process waits in
// Redis, when the server stops answering for longer than the lease. Once
// it answers again both waiters get the lock, one after the other, each
// only after the holder was told that its hold is lost, and the holder's
// Unlock reports the loss.
func TestLocalHandoff_a_stall_past_the_lease_tells_the_holder_before_any_waiter_gets_the_lock(t *testing.T) {
	srv := redistest.StartServer(t)
	const lease = time.Second
	c := srv.Client(t)
	lcA, lcB := redistest.Lockkit(t, srv.Client(t)), redistest.Lockkit(t, srv.Client(t))
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	opts := []lockkit.Option{handoff, lockkit.WithWatchdogTimeout(lease)}
	first, holder, waiter := reentrant.New(lcA, name, opts...), reentrant.New(lcA, name, opts...), reentrant.New(lcA, name, opts...)
	redistest.MustLock(t, first)
	got := lockLocal(ctx, t, holder, 1)
	redistest.MustUnlock(t, first) // hands the hold over
	if err := redistest.Receive(t, got, 10*time.Second, "the hand-over"); err != nil {
		t.Fatal(err)
	}
	lost := holder.Lost()
	var inside atomic.Int32
	after := func(m *reentrant.Mutex) <-chan error {
		done := make(chan error, 1)
		go func() {
			if err := m.Lock(ctx); err != nil {
				done <- err
				return
			}
			if !redistest.Closed(lost) {
				done <- errors.New("got the lock while the holder's lost signal was still open")
				_ = m.Unlock(context.Background())
				return
			}
			done <- holdAlone(ctx, m, &inside)
		}()
		return done
	}
	inMemory := after(waiter)
	waitLocal(t, holder, 1)
	inRedis := after(reentrant.New(lcB, name, opts...))
	waitAsleep(t, lcB, name, 1)

	srv.Stall(t, 3*lease)
	for what, done := range map[string]<-chan error{"the waiter in memory": inMemory, "the other process": inRedis} {
		if err := redistest.Receive(t, done, redistest.Hang, what+"'s Lock and Unlock"); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
	redistest.AssertClean(t, c, name)
}
