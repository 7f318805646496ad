package fair_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestClose_takes_waiting_owners_out_of_the_queue checks that closing the
// Client of a waiter ends its Lock with ErrClosed and takes its entry out
// of the queue before Lock returns, so that the waiter behind it gets the lock at the next
// release instead of a waiter timeout (a minute here) later.
func TestClose_takes_waiting_owners_out_of_the_queue(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *lockEnv) {
		opts := []lockkit.Option{fair.WithWaiterTimeout(time.Minute)}
		holder := e.held()
		closing := redistest.Lockkit(t, e.c)
		first := e.on(closing).mutex(append(opts, lockkit.WithOwner("first"))...)
		second := e.mutex(append(opts, lockkit.WithOwner("second"))...)
		gone := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), first)
		e.waitQueue("first")
		comes := redistest.LockAsync(redistest.Ctx(t, 20*time.Second), second)
		e.waitQueue("first", "second")
		if err := closing.Close(); err != nil {
			t.Fatal(err)
		}
		redistest.WantErr(t, redistest.Receive(t, gone, 10*time.Second, "the Lock of the closed Client"), lockkit.ErrClosed)
		e.wantQueue("second")
		redistest.MustUnlock(t, holder)
		e.wantTurn(second, comes, 10*time.Second, "the waiter behind the closed Client's")
	})
}
