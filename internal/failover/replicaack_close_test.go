package failover_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestWithReplicaAck_Close_during_the_wait_for_replicas_gives_the_hold_back
// takes a lock of every kind WithReplicaAck applies to while the master's
// only replica stalls, and closes the lock's Client while the Lock waits
// for the replica: once the replica acknowledges, the Lock returns
// ErrClosed, as a Lock whose acquire was on its way at Close does, and
// another owner can take the lock at once (a hold kept would stay until
// its lease ends, its holder told it was lost).
func TestWithReplicaAck_Close_during_the_wait_for_replicas_gives_the_hold_back(t *testing.T) {
	t.Parallel()
	master, replica := replicated(t)
	others := redistest.Lockkit(t, master.Client(t))
	type waiting struct {
		k    kind
		name string
		lc   *lockkit.Client
		got  <-chan error
	}
	replica.Stall(t, 8*time.Second)
	var ws []waiting
	for _, k := range ackKinds() {
		w := waiting{k: k, name: redistest.Unique(t)}
		w.lc = redistest.Lockkit(t, namedClient(t, master, "close."+k.name))
		m := k.holder(w.lc, w.name, lockkit.WithReplicaAck(1, ackWait))
		w.got = redistest.LockAsync(redistest.Ctx(t, ackWait+callTimeout), m)
		ws = append(ws, w)
	}
	for _, w := range ws {
		waitingForReplicas(t, master, "close."+w.k.name)
	}
	closed := make(chan struct{})
	for _, w := range ws {
		// Close waits for the WAIT, which ends with the stall: every
		// Client is closed at once.
		go func() { _ = w.lc.Close(); closed <- struct{}{} }()
	}
	for _, w := range ws {
		redistest.Receive(t, w.lc.Done(), callTimeout, "the Client of "+w.k.name+" closing")
	}
	mc := master.Client(t)
	for _, w := range ws {
		if !blockedInWait(t, mc, "close."+w.k.name) {
			t.Fatalf("%s: the WAIT ended before every Client was closed: the stall is too short for this machine", w.k.name)
		}
	}
	t.Cleanup(func() {
		for range ws {
			<-closed
		}
	})
	for _, w := range ws {
		t.Run(w.k.name, func(t *testing.T) {
			err := redistest.Receive(t, w.got, ackWait+callTimeout, "the Lock")
			if !errors.Is(err, lockkit.ErrClosed) {
				t.Errorf("Lock = %v, want ErrClosed", err)
			}
			takesFree(t, w.k.waiter(others, w.name), "the Lock returned")
		})
	}
}
