package semaphore_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// acquireAsync starts s.Acquire(ctx, n) and returns the channel its
// permits arrive on (nil after an error, reported with t.Errorf unless
// ctx ended).
func acquireAsync(ctx context.Context, t *testing.T, s *semaphore.Semaphore, n int) <-chan *semaphore.Permits {
	got := make(chan *semaphore.Permits, 1)
	go func() {
		p, err := s.Acquire(ctx, n)
		if err != nil && ctx.Err() == nil {
			t.Errorf("Acquire(%d): %v", n, err)
		}
		got <- p
	}()
	return got
}

// acquireTo starts an Acquire of n permits of s on ctx that sends its
// permits on got, nil if it failed (and then reports its error).
func acquireTo(ctx context.Context, t *testing.T, s *semaphore.Semaphore, n int, got chan<- *semaphore.Permits) {
	go func() {
		p, err := s.Acquire(ctx, n)
		if err != nil {
			t.Errorf("Acquire: %v", err)
		}
		got <- p
	}()
}

// served waits, saying what for, for the permits a waiter sends on got
// (as acquireAsync's does), and ends the test if the waiter got none (it
// has reported its Acquire's error already).
func served(t *testing.T, got <-chan *semaphore.Permits, what string) *semaphore.Permits {
	t.Helper()
	p := redistest.Receive(t, got, redistest.Hang, what)
	if p == nil {
		t.FailNow()
	}
	return p
}

// TestAcquire_waiter_that_gives_up_wakes_the_waiters_behind_it queues a
// waiter for 2 permits, then one for 1, behind a semaphore of 3 with 2
// held: the free permit is not the second's while the first waits ahead
// of it, and once the first's ctx ends the second is woken (by a message,
// not only by its heartbeat) and served. (Not on a Cluster, where a
// pattern subscription sees only one node's messages.)
func TestAcquire_waiter_that_gives_up_wakes_the_waiters_behind_it(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, rc redis.UniversalClient) {
		s, name := newSemaphore(t, rc, 3)
		held := mustAcquire(t, s, 2)
		wakes := countWakes(t, rc, name)
		ctx := redistest.Ctx(t, redistest.Hang)
		first, giveUp := context.WithCancel(ctx)
		big := acquireAsync(first, t, semaphore.New(redistest.Lockkit(t, rc), name, 3), 2)
		waitQueued(t, rc, name, 1)
		small := acquireAsync(ctx, t, semaphore.New(redistest.Lockkit(t, rc), name, 3), 1)
		waitQueued(t, rc, name, 2) // queued: its attempt was refused
		select {
		case <-small:
			t.Fatal("the waiter for 1 permit passed the waiter for 2 ahead of it")
		default:
		}
		giveUp()
		if p := redistest.Receive(t, big, redistest.Hang, "the first waiter to give up"); p != nil {
			t.Fatal("the waiter that gave up got its permits")
		}
		p := served(t, small, "the waiter behind the one that gave up")
		if n := wakes.since(); n != 1 {
			t.Fatalf("the waiter that gave up woke %d waiters, want 1", n)
		}
		mustRelease(t, p)
		mustRelease(t, held)
		redistest.AssertClean(t, rc, name)
	})
}

// TestTryAcquire_refuses_free_permits_while_a_waiter_is_ahead: a permit
// is free, but a waiter for 2 waits first; TryAcquire must not pass it.
func TestTryAcquire_refuses_free_permits_while_a_waiter_is_ahead(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		s := semaphore.New(redistest.Lockkit(t, rc), name, 2)
		held := mustAcquire(t, s, 1)
		ctx := redistest.Ctx(t, redistest.Hang)
		waiting, giveUp := context.WithCancel(ctx)
		defer giveUp()
		waiter := acquireAsync(waiting, t, s, 2)
		waitQueued(t, rc, name, 1)
		if p, err := s.TryAcquire(ctx, 1); p != nil || err != nil {
			t.Fatalf("TryAcquire with a waiter ahead = %v, %v; want nil, nil", p, err)
		}
		mustRelease(t, held)
		mustRelease(t, redistest.Receive(t, waiter, redistest.Hang, "the waiter for 2"))
	})
}

// TestSetPermits_below_a_waiters_n_keeps_it_and_those_behind_it_waiting
// shrinks a semaphore to 2 under a waiter for 3 and a waiter for 1 behind
// it: with every permit free, neither is served nor woken (nobody passes
// the first); growing the number to 4 wakes and serves both. (Not on a
// Cluster, where a pattern subscription sees only one node's messages.)
func TestSetPermits_below_a_waiters_n_keeps_it_and_those_behind_it_waiting(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, rc redis.UniversalClient) {
		name := redistest.Unique(t)
		c := redistest.Lockkit(t, rc)
		s := semaphore.New(c, name, 3)
		ctx := redistest.Ctx(t, redistest.Hang)
		held := mustAcquire(t, s, 3)
		wakes := countWakes(t, rc, name)
		big := acquireAsync(ctx, t, s, 3)
		waitQueued(t, rc, name, 1)
		small := acquireAsync(ctx, t, s, 1)
		waitQueued(t, rc, name, 2)
		if err := s.SetPermits(ctx, 2); err != nil {
			t.Fatal(err)
		}
		mustRelease(t, held)
		wantAvailable(t, s, 2)
		waitSleeping(t, rc, c, name, 2)
		select {
		case <-big:
			t.Fatal("the waiter for 3 permits was served by 2")
		case <-small:
			t.Fatal("the waiter for 1 permit passed the waiter for 3 ahead of it")
		default:
		}
		if n := wakes.since(); n != 0 {
			t.Fatalf("%d waiters woken while the first waits for more than the number", n)
		}
		if err := s.SetPermits(ctx, 4); err != nil {
			t.Fatal(err)
		}
		a := redistest.Receive(t, big, redistest.Hang, "the waiter for 3")
		b := redistest.Receive(t, small, redistest.Hang, "the waiter for 1")
		if n := wakes.since(); n != 2 {
			t.Fatalf("growing the number woke %d waiters, want 2", n)
		}
		mustRelease(t, a)
		mustRelease(t, b)
	})
}

// TestAcquire_dead_waiters_place_lapses has a child process wait for the
// only permit and kills it, with a waiter of the test behind it: once the
// permit is released, the dead waiter's place lapses (after the waiter
// timeout) and the live one is served, instead of waiting behind it for
// ever.
func TestAcquire_dead_waiters_place_lapses(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, redistest.Hang)
		s, name := newSemaphore(t, rc, 1)
		held := mustAcquire(t, s, 1)
		kid := redistest.StartChild(t, "holder", redistest.ClientSpec(rc), name, "1", "30000")
		kid.WaitLine(t, "ready", redistest.Hang)
		kid.Send(t, "acquire 1")
		waitQueued(t, rc, name, 1)
		got := acquireAsync(ctx, t, semaphore.New(redistest.Lockkit(t, rc), name, 1), 1)
		waitQueued(t, rc, name, 2)
		kid.Kill(t)
		mustRelease(t, held)
		p := served(t, got, "the waiter behind the dead one")
		mustRelease(t, p)
		redistest.AssertClean(t, rc, name)
	})
}
