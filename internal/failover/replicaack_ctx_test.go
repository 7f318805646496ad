package failover_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestWithReplicaAck_ctx_ending_during_the_wait_for_replicas_returns_at_once
// takes a lock of every kind WithReplicaAck applies to on a master whose
// only replica is cut off, so that the wait for the replicas lasts its
// whole timeout (8 s), and ends the Lock's ctx during that wait, by its
// deadline or by cancelling it: Lock returns at once, with an error
// matching ErrNotObtained and ctx's error, and another owner can take the
// lock right away.
func TestWithReplicaAck_ctx_ending_during_the_wait_for_replicas_returns_at_once(t *testing.T) {
	t.Parallel()
	master, replica := replicated(t)
	cutOff(t, master, replica)
	others := redistest.Lockkit(t, master.Client(t))
	// promptly bounds the return of a Lock whose ctx ended: well below
	// ackWait, which a Lock that waits for the replicas regardless takes.
	const promptly = ackWait / 4
	ends := []struct {
		name string
		// lock calls Lock on m, and ends its ctx during the wait for the
		// replicas of the connections named client; it returns how long
		// Lock took once ctx ended, ctx's error and Lock's.
		lock func(t *testing.T, m lockkit.Locker, client string) (late time.Duration, ctxErr, err error)
	}{
		{"deadline", func(t *testing.T, m lockkit.Locker, _ string) (time.Duration, error, error) {
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			err := m.Lock(ctx)
			deadline, _ := ctx.Deadline()
			return time.Since(deadline), ctx.Err(), err
		}},
		{"cancel", func(t *testing.T, m lockkit.Locker, client string) (time.Duration, error, error) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			got := redistest.LockAsync(ctx, m)
			waitingForReplicas(t, master, client)
			cancel()
			cancelled := time.Now()
			err := redistest.Receive(t, got, ackWait+callTimeout, "the Lock")
			return time.Since(cancelled), ctx.Err(), err
		}},
	}
	for _, k := range ackKinds() {
		for _, end := range ends {
			t.Run(k.name+"/"+end.name, func(t *testing.T) {
				t.Parallel()
				client := k.name + "." + end.name
				lc := redistest.Lockkit(t, namedClient(t, master, client))
				name := redistest.Unique(t)
				m := k.holder(lc, name, lockkit.WithReplicaAck(1, ackWait))
				late, ctxErr, err := end.lock(t, m, client)
				if !errors.Is(err, lockkit.ErrNotObtained) || ctxErr == nil || !errors.Is(err, ctxErr) {
					t.Fatalf("Lock = %v; want ErrNotObtained matching ctx's error %v", err, ctxErr)
				}
				if late > promptly {
					t.Fatalf("Lock returned %v after its ctx ended, want within %v", late, promptly)
				}
				takesFree(t, k.waiter(others, name), "the Lock returned")
			})
		}
	}
}
