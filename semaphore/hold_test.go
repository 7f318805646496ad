package semaphore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestRelease_with_an_ended_ctx_still_releases: a cancelled request must
// not keep its permits.
func TestRelease_with_an_ended_ctx_still_releases(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		s := semaphore.New(redistest.Lockkit(t, rc), name, 2)
		p := mustAcquire(t, s, 2)
		ended, cancel := context.WithCancel(context.Background())
		cancel()
		if err := p.Release(ended); err != nil {
			t.Fatalf("Release with an ended ctx = %v", err)
		}
		wantAvailable(t, s, 2)
	})
}

// TestAcquire_with_an_ended_ctx_matches_both_errors: Acquire and
// TryAcquire called with a ctx already ended fail with ErrNotObtained and
// ctx.Err(), and take nothing.
func TestAcquire_with_an_ended_ctx_matches_both_errors(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		s := semaphore.New(redistest.Lockkit(t, rc), name, 2)
		ended, cancel := context.WithCancel(context.Background())
		cancel()
		p, err := s.Acquire(ended, 1)
		redistest.WantErr(t, err, lockkit.ErrNotObtained, context.Canceled)
		if p != nil {
			t.Fatal("Acquire returned permits with its error")
		}
		_, err = s.TryAcquire(ended, 1)
		redistest.WantErr(t, err, lockkit.ErrNotObtained, context.Canceled)
		wantAvailable(t, s, 2)
	})
}

// TestPermits_Lost_closes_when_the_hold_vanishes deletes a semaphore's
// data under two holds: both are told, the Release of a lost hold returns
// ErrLost, and the permits can be taken again; a Release does not close
// Lost.
func TestPermits_Lost_closes_when_the_hold_vanishes(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		ctx := redistest.Ctx(t, redistest.Hang)
		s := semaphore.New(redistest.Lockkit(t, rc), name, 2, lockkit.WithWatchdogTimeout(300*time.Millisecond))
		p, q := mustAcquire(t, s, 1), mustAcquire(t, s, 1)
		if err := rc.Del(ctx, "lockkit:{"+name+"}", "lockkit:{"+name+"}:leases").Err(); err != nil {
			t.Fatal(err)
		}
		redistest.Receive(t, p.Lost(), redistest.Hang, "the first hold to be found lost")
		redistest.Receive(t, q.Lost(), redistest.Hang, "the second hold to be found lost")
		redistest.WantErr(t, p.Release(ctx), lockkit.ErrLost)
		r := mustAcquire(t, s, 2)
		mustRelease(t, r)
		if redistest.Closed(r.Lost()) {
			t.Fatal("Release closed Lost")
		}
		redistest.WantErr(t, r.Release(ctx), lockkit.ErrNotHeld)
	})
}

// TestAcquire_fixed_lease_ends_by_itself holds both permits with
// WithLease(1 s) while a waiter waits: the hold is reported lost, the
// waiter is served once the lease ends, and the old Release says ErrLost.
func TestAcquire_fixed_lease_ends_by_itself(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, redistest.Hang)
		s, name := newSemaphore(t, rc, 2, lockkit.WithLease(time.Second))
		p := mustAcquire(t, s, 2)
		got := acquireAsync(ctx, t, semaphore.New(redistest.Lockkit(t, rc), name, 2), 1)
		redistest.Receive(t, p.Lost(), redistest.Hang, "the fixed lease to be reported lost")
		q := served(t, got, "the waiter to be served at the lease's end")
		redistest.WantErr(t, p.Release(ctx), lockkit.ErrLost)
		wantAvailable(t, s, 1)
		mustRelease(t, q)
		redistest.AssertClean(t, rc, name)
	})
}

// TestAcquire_fixed_lease_holder_is_told_before_its_permits_are_taken
// holds the only permit with a fixed lease, while another Client tries to
// take it again and again: when it gets it, the holder's lost signal has
// closed already, five holds in a row.
func TestAcquire_fixed_lease_holder_is_told_before_its_permits_are_taken(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	other := redistest.Lockkit(t, srv.Client(t))
	ctx := redistest.Ctx(t, redistest.Hang)
	for i := range 5 {
		s, name := newSemaphore(t, rc, 1, lockkit.WithLease(100*time.Millisecond))
		p := mustAcquire(t, s, 1)
		o := semaphore.New(other, name, 1)
		for {
			q, err := o.TryAcquire(ctx, 1)
			if err != nil {
				t.Fatalf("hold %d: another Client's TryAcquire: %v", i, err)
			}
			if q != nil {
				if !redistest.Closed(p.Lost()) {
					t.Fatalf("hold %d: another Client took the permit before the holder's lost signal closed", i)
				}
				mustRelease(t, q)
				break
			}
		}
	}
}

// TestHolders_are_in_the_order_their_leases_end takes a hold with a long
// lease, then one with a shorter one: Holders lists the second first.
func TestHolders_are_in_the_order_their_leases_end(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		c := redistest.Lockkit(t, rc)
		long := mustAcquire(t, semaphore.New(c, name, 3, lockkit.WithLease(time.Hour)), 1)
		short := mustAcquire(t, semaphore.New(c, name, 3, lockkit.WithLease(time.Minute)), 2)
		hs, err := semaphore.New(c, name, 3).Holders(redistest.Ctx(t, redistest.Hang))
		if err != nil || len(hs) != 2 || hs[0].Token != short.Token() || hs[1].Token != long.Token() {
			t.Fatalf("Holders = %+v, %v; want the hold of 2 (token %d), then the hold of 1 (token %d)", hs, err, short.Token(), long.Token())
		}
		mustRelease(t, long)
		mustRelease(t, short)
	})
}

// TestClient_Close_ends_a_waiting_Acquire_and_reports_holds_lost closes a
// Client with a hold open and an Acquire waiting: the Acquire returns
// ErrClosed and leaves the queue, the hold's Lost closes, and later calls
// return ErrClosed.
func TestClient_Close_ends_a_waiting_Acquire_and_reports_holds_lost(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		name := redistest.Unique(t)
		held := mustAcquire(t, semaphore.New(redistest.Lockkit(t, rc), name, 2), 1)
		c := lockkit.New(rc)
		s := semaphore.New(c, name, 2)
		mine := mustAcquire(t, s, 1)
		done := make(chan error, 1)
		go func() {
			_, err := s.Acquire(redistest.Ctx(t, redistest.Hang), 1)
			done <- err
		}()
		waitSleeping(t, rc, c, name, 1)
		_ = c.Close()
		redistest.WantErr(t, redistest.Receive(t, done, redistest.Hang, "the waiting Acquire to return"), lockkit.ErrClosed)
		redistest.Receive(t, mine.Lost(), redistest.Hang, "the open hold to be reported lost")
		waitQueued(t, rc, name, 0)
		_, err := s.Acquire(redistest.Ctx(t, redistest.Hang), 1)
		redistest.WantErr(t, err, lockkit.ErrClosed)
		mustRelease(t, held)
	})
}

// TestAcquire_resent_by_the_client_takes_the_permits_once sends each
// acquire (a first attempt, and the attempt of a waiter that a release
// serves) and a release twice, as go-redis does when it retries after a
// read timeout: every hold counts once.
func TestAcquire_resent_by_the_client_takes_the_permits_once(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		h := &redistest.ResendScript{}
		wrc := redistest.SpecClient(redistest.ClientSpec(rc))
		t.Cleanup(func() { _ = wrc.Close() })
		wrc.AddHook(h)
		s := semaphore.New(redistest.Lockkit(t, wrc), name, 3)
		h.Arm()
		p := mustAcquire(t, s, 2)
		if h.Armed() {
			t.Fatal("the acquire was not sent")
		}
		wantAvailable(t, s, 1)
		h.Arm()
		mustRelease(t, p)
		wantAvailable(t, s, 3)

		all := mustAcquire(t, semaphore.New(redistest.Lockkit(t, rc), name, 3), 3)
		got := acquireAsync(redistest.Ctx(t, redistest.Hang), t, s, 1)
		waitQueued(t, rc, name, 1)
		h.Arm() // the waiter's next attempt
		mustRelease(t, all)
		q := redistest.Receive(t, got, redistest.Hang, "the waiter to be served")
		if q == nil || h.Armed() {
			t.Fatalf("the waiter was served (%v) without a script sent twice", q != nil)
		}
		wantAvailable(t, s, 2)
		mustRelease(t, q)
		wantAvailable(t, s, 3)
	})
}

// TestSetPermits_number_lasts_a_day_after_the_last_hold: the number set
// at run time outlives 23 hours since it was set when a hold was taken
// meanwhile, and lapses 24 hours after that hold, back to New's.
func TestSetPermits_number_lasts_a_day_after_the_last_hold(t *testing.T) {
	mr, rc := redistest.Mini(t)
	s := semaphore.New(redistest.Lockkit(t, rc), redistest.Unique(t), 2)
	ctx := redistest.Ctx(t, redistest.Hang)
	if err := s.SetPermits(ctx, 3); err != nil {
		t.Fatal(err)
	}
	mr.FastForward(23 * time.Hour)
	mustRelease(t, mustAcquire(t, s, 1))
	mr.FastForward(23 * time.Hour)
	wantPermits(t, s, 3)
	mr.FastForward(2 * time.Hour)
	wantPermits(t, s, 2)
}

// wantPermits fails the test unless s has want permits.
func wantPermits(t *testing.T, s *semaphore.Semaphore, want int) {
	t.Helper()
	if n, err := s.Permits(redistest.Ctx(t, redistest.Hang)); n != want || err != nil {
		t.Fatalf("Permits = %d, %v; want %d", n, err, want)
	}
}

// TestAcquire_cut_short_by_a_stalled_server_leaves_nothing_behind stalls
// the server under Acquires (of 1, taking a free permit, and of 2,
// queueing) and a TryAcquire whose ctx ends first: their scripts run once
// the stall is over, and what they took, permits or places in the queue,
// is given back without waiting for a lease (5 minutes here) to end.
func TestAcquire_cut_short_by_a_stalled_server_leaves_nothing_behind(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	s, name := newSemaphore(t, rc, 2, lockkit.WithWatchdogTimeout(5*time.Minute))
	mustRelease(t, mustAcquire(t, s, 1)) // load the scripts
	held := mustAcquire(t, s, 1)
	srv.Stall(t, 2*time.Second)
	calls := []func(context.Context) (*semaphore.Permits, error){
		func(ctx context.Context) (*semaphore.Permits, error) { return s.Acquire(ctx, 1) },
		func(ctx context.Context) (*semaphore.Permits, error) { return s.Acquire(ctx, 2) },
		func(ctx context.Context) (*semaphore.Permits, error) { return s.TryAcquire(ctx, 1) },
	}
	for _, call := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		p, err := call(ctx)
		cancel()
		redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
		if p != nil {
			t.Fatal("a failed call returned permits")
		}
	}
	redistest.Eventually(t, redistest.Hang, "the permit taken late to be given back and the queue left", func() bool {
		n, err := s.Available(context.Background())
		q, qerr := rc.ZCard(context.Background(), "lockkit:{"+name+"}:waiters").Result()
		return err == nil && qerr == nil && n == 1 && q == 0
	})
	mustRelease(t, held)
	redistest.AssertClean(t, rc, name)
}

// TestRelease_called_concurrently_releases_once: Permits is safe for
// concurrent use; of three Releases at once, one frees the permits and
// the others find them released.
func TestRelease_called_concurrently_releases_once(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		s := semaphore.New(redistest.Lockkit(t, rc), name, 2)
		ctx := redistest.Ctx(t, redistest.Hang)
		for range 10 {
			p := mustAcquire(t, s, 2)
			errs := make(chan error, 3)
			for range 3 {
				go func() { errs <- p.Release(ctx) }()
			}
			released := 0
			for range 3 {
				switch err := redistest.Receive(t, errs, redistest.Hang, "a Release to return"); {
				case err == nil:
					released++
				case !errors.Is(err, lockkit.ErrNotHeld):
					t.Fatalf("Release = %v, want nil or ErrNotHeld", err)
				}
			}
			if released != 1 {
				t.Fatalf("%d Releases released, want 1", released)
			}
			wantAvailable(t, s, 2)
		}
	})
}
