package watchdog_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// TestClose_called_twice_at_once_both_wait_for_the_renewals_in_flight
// checks Close's promise to leave no goroutine behind for every caller:
// two Closes at once (a deferred one and a shutdown hook, say) while a
// renewal is stuck on a stalled server both return only once that renewal
// has, and after the holds were reported lost with ErrClosed.
func TestClose_called_twice_at_once_both_wait_for_the_renewals_in_flight(t *testing.T) {
	srv, c, flying := stallable(t)
	const ttl = 30 * time.Second
	w := watchdog.New(c)
	key := redistest.Unique(t)
	if err := c.Set(redistest.Ctx(t, 5*time.Second), key, 1, ttl).Err(); err != nil {
		t.Fatal(err)
	}
	var lost atomic.Bool
	w.Register().Start(watchdog.Lease{
		Script: renewScript, Keys: []string{key}, Args: []any{ttl.Milliseconds()}, TTL: ttl,
		OnLost: func(error) { lost.Store(true) },
	}, time.Now())

	srv.Stall(t, 3*time.Second)
	w.Check() // a renewal now, stuck on the stalled server
	redistest.Eventually(t, 5*time.Second, "a renewal to be in flight", func() bool { return flying.inFlight.Load() > 0 })
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			_ = w.Close()
			if n := flying.inFlight.Load(); n > 0 {
				t.Errorf("Close %d returned with %d renewals in flight", i, n)
			}
			if !lost.Load() {
				t.Errorf("Close %d returned before the hold was reported lost", i)
			}
		})
	}
	wg.Wait()
}

// TestClose_reports_a_suspended_hold_lost_with_ErrClosed checks that Close
// reports a hold that is suspended (its Unlock's release on its way) lost
// with ErrClosed, as Close and Suspend say: should that release fail, its
// Resume comes too late to renew the hold, and the holder must learn that
// nothing keeps its lease alive. A hold stopped before Close is not
// reported.
func TestClose_reports_a_suspended_hold_lost_with_ErrClosed(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	w := watchdog.New(c)
	const ttl = time.Minute
	lost := make(chan error, 2)
	suspended := w.Register()
	suspended.Start(lease(redistest.Unique(t), ttl, lost), time.Now())
	suspended.Suspend()
	stopped := w.Register()
	stopped.Start(lease(redistest.Unique(t), ttl, lost), time.Now())
	stopped.Stop()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, redistest.Receive(t, lost, 5*time.Second, "OnLost of the suspended hold"), watchdog.ErrClosed)
	select {
	case err := <-lost:
		t.Fatalf("a second OnLost after Close, with %v: the stopped hold was reported", err)
	default:
	}
	suspended.Resume() // too late: changes nothing
	suspended.Stop()
}
