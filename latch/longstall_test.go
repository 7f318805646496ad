package latch_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestAwait_through_a_stall_longer_than_the_client_waits_for_a_reply
// stalls the server under a sleeping waiter for longer than its
// notifier's health check and its client's read timeout (5 s), and opens
// the latch with a count-down sent during the stall by a patient client:
// the waiter gives up its sleep when its notifier finds the connection
// silent, its reads fail meanwhile, and neither ends the wait; once the
// stall is over it returns.
func TestAwait_through_a_stall_longer_than_the_client_waits_for_a_reply(t *testing.T) {
	s := redistest.StartServer(t)
	c := redistest.Lockkit(t, s.Client(t))
	name, got := sleepingAwait(t, c)
	s.Stall(t, 10*time.Second)
	counted := make(chan error, 1)
	go func() {
		_, err := latch.New(redistest.Lockkit(t, redistest.Patient(t, s.Addr())), name, 1).CountDown(redistest.Ctx(t, redistest.Hang))
		counted <- err
	}()
	waitSleeping(t, c, name, 0)
	redistest.NotYet(t, got, "the waiter returned during the stall")
	if err := redistest.Receive(t, counted, redistest.Hang, "the count-down"); err != nil {
		t.Fatalf("CountDown sent during the stall = %v", err)
	}
	if err := redistest.Receive(t, got, redistest.Hang, "Await to return"); err != nil {
		t.Fatalf("Await after a long stall = %v", err)
	}
}
