package semaphore_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/semaphore"
)

func TestNew_invalid_arguments_return_ErrInvalid(t *testing.T) {
	c, _ := redistest.Silent(t)
	cases := redistest.Invalids(c, semaphoreOfOne, []redistest.Invalid[*semaphore.Semaphore]{
		{Name: "zero permits", V: semaphore.New(c, "x", 0), Want: "permits"},
		{Name: "huge permits", V: semaphore.New(c, "x", semaphore.MaxPermits+1), Want: "permits"},
		{Name: "option of latches", V: semaphore.New(c, "x", 1, latch.WithExpiry(time.Hour)), Want: "WithExpiry"},
		{Name: "option of owners", V: semaphore.New(c, "x", 1, lockkit.WithOwner("o")), Want: "WithOwner"},
		{Name: "bad lease", V: semaphore.New(c, "x", 1, lockkit.WithLease(0)), Want: "WithLease"},
	})
	ctx := context.Background()
	acquire := func(t *testing.T, s *semaphore.Semaphore, n int, want string) {
		p, err := s.Acquire(ctx, n)
		redistest.WantInvalid(t, "Acquire", err, want)
		if p != nil {
			t.Error("Acquire returned permits with its error")
		}
		_, err = s.TryAcquire(ctx, n)
		redistest.WantInvalid(t, "TryAcquire", err, want)
	}
	redistest.EachInvalid(t, cases, func(t *testing.T, s *semaphore.Semaphore, want string) {
		acquire(t, s, 1, want)
		_, err := s.Available(ctx)
		redistest.WantInvalid(t, "Available", err, want)
		_, err = s.Holders(ctx)
		redistest.WantInvalid(t, "Holders", err, want)
		redistest.WantInvalid(t, "SetPermits", s.SetPermits(ctx, 1), want)
	})
	for _, n := range []int{0, 3} {
		acquire(t, semaphore.New(c, "x", 2), n, "n must")
	}
	s := semaphore.New(c, "x", 1)
	redistest.WantInvalid(t, "SetPermits(0)", s.SetPermits(ctx, 0), "permits")
	redistest.WantInvalid(t, "Release(nil)", s.Release(ctx, nil), "nil")
	//lint:ignore SA1012 a nil ctx is the input under test
	_, err := s.Acquire(nil, 1) //nolint:staticcheck
	redistest.WantInvalid(t, "Acquire(nil)", err, "nil")
}

// mustAcquire acquires n permits of s or fails the test.
func mustAcquire(t *testing.T, s *semaphore.Semaphore, n int) *semaphore.Permits {
	t.Helper()
	p, err := s.Acquire(redistest.Ctx(t, redistest.Hang), n)
	if err != nil {
		t.Fatalf("Acquire(%d): %v", n, err)
	}
	return p
}

// mustRelease releases p or fails the test.
func mustRelease(t *testing.T, p *semaphore.Permits) {
	t.Helper()
	if err := p.Release(redistest.Ctx(t, redistest.Hang)); err != nil {
		t.Fatalf("Release: %v", err)
	}
}

// wantAvailable fails the test unless s has want permits free.
func wantAvailable(t *testing.T, s *semaphore.Semaphore, want int) {
	t.Helper()
	n, err := s.Available(redistest.Ctx(t, redistest.Hang))
	if err != nil || n != want {
		t.Fatalf("Available = %d, %v; want %d", n, err, want)
	}
}

// TestAcquire_never_more_than_permits_holders hammers a semaphore of 3
// from goroutines on three Clients (three notifiers and watchdogs, as
// three processes have), each taking 1 or 2 permits: the permits held at
// once never exceed 3, every token is new, and nothing is left behind.
func TestAcquire_never_more_than_permits_holders(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, redistest.Hang)
		name := redistest.Unique(t)
		const permits, rounds = 3, 15
		var (
			held, most atomic.Int32
			mu         sync.Mutex
			tokens     = map[int64]bool{}
			wg         sync.WaitGroup
		)
		for i := range 6 {
			c := redistest.Lockkit(t, rc)
			n := 1 + i%2
			wg.Go(func() {
				s := semaphore.New(c, name, permits)
				for range rounds {
					p, err := s.Acquire(ctx, n)
					if err != nil {
						t.Errorf("Acquire: %v", err)
						return
					}
					now := held.Add(int32(n))
					for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
					}
					mu.Lock()
					dup := tokens[p.Token()]
					tokens[p.Token()] = true
					mu.Unlock()
					if dup {
						t.Errorf("token %d given twice", p.Token())
					}
					runtime.Gosched() // give another holder the chance to show up
					held.Add(-int32(n))
					if err := p.Release(ctx); err != nil {
						t.Errorf("Release: %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
		if m := most.Load(); m > permits {
			t.Fatalf("%d permits held at once, more than %d", m, permits)
		}
		redistest.AssertClean(t, rc, name)
	})
}

// TestAcquire_waiters_are_served_in_arrival_order queues waiters from two
// Clients, one after the other, behind the only permit: each release
// hands it to the next in the order they came.
func TestAcquire_waiters_are_served_in_arrival_order(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		clients := []*lockkit.Client{redistest.Lockkit(t, rc), redistest.Lockkit(t, rc)}
		first := mustAcquire(t, semaphore.New(clients[0], name, 1), 1)
		const waiters = 5
		order := make(chan int, waiters)
		var wg sync.WaitGroup
		for i := range waiters {
			s := semaphore.New(clients[i%2], name, 1)
			wg.Go(func() {
				p, err := s.Acquire(redistest.Ctx(t, redistest.Hang), 1)
				if err != nil {
					t.Errorf("Acquire %d: %v", i, err)
					return
				}
				order <- i
				if err := p.Release(redistest.Ctx(t, redistest.Hang)); err != nil {
					t.Errorf("Release %d: %v", i, err)
				}
			})
			waitQueued(t, rc, name, i+1)
		}
		mustRelease(t, first)
		wg.Wait()
		close(order)
		want := 0
		for got := range order {
			if got != want {
				t.Fatalf("waiter %d served when %d was next", got, want)
			}
			want++
		}
	})
}

// wakeCounter counts the wake-ups published on the waiters' own channels
// of a semaphore, listening with a pattern on a connection of its own.
type wakeCounter struct {
	t      *testing.T
	rc     redis.UniversalClient
	sub    *redis.PubSub
	marker string
}

func countWakes(t *testing.T, rc redis.UniversalClient, name string) *wakeCounter {
	t.Helper()
	ctx := redistest.Ctx(t, redistest.Hang)
	w := &wakeCounter{t: t, rc: rc, marker: "lockkit:{" + name + "}:ch:~marker"}
	w.sub = rc.PSubscribe(ctx, "lockkit:{"+name+"}:ch:*")
	t.Cleanup(func() { w.sub.Close() })
	if _, err := w.sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	return w
}

// since returns how many wake-ups were published since the last call:
// those that came before a marker it publishes after them.
func (w *wakeCounter) since() int {
	w.t.Helper()
	ctx := redistest.Ctx(w.t, redistest.Hang)
	if err := w.rc.Publish(ctx, w.marker, "").Err(); err != nil {
		w.t.Fatal(err)
	}
	n := 0
	for {
		msg, err := w.sub.ReceiveMessage(ctx)
		if err != nil {
			w.t.Fatal(err)
		}
		if msg.Channel == w.marker {
			return n
		}
		n++
	}
}

// TestRelease_wakes_only_the_waiters_its_permits_serve has four waiters
// of one permit each behind a semaphore of 3 held by two holds (of 1 and
// of 2): the release of the first wakes one waiter, the release of the
// second two, and none of the others. (Not on a Cluster, where a
// pattern subscription sees only one node's messages.)
func TestRelease_wakes_only_the_waiters_its_permits_serve(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, rc redis.UniversalClient) {
		s, name := newSemaphore(t, rc, 3)
		one, two := mustAcquire(t, s, 1), mustAcquire(t, s, 2)
		wakes := countWakes(t, rc, name)
		const waiters = 4
		got := make(chan *semaphore.Permits, waiters)
		ctx := redistest.Ctx(t, redistest.Hang)
		for i := range waiters {
			acquireTo(ctx, t, semaphore.New(redistest.Lockkit(t, rc), name, 3), 1, got)
			waitQueued(t, rc, name, i+1)
		}
		mustRelease(t, one)
		held := []*semaphore.Permits{redistest.Receive(t, got, redistest.Hang, "a waiter to be served")}
		if n := wakes.since(); n != 1 {
			t.Fatalf("the release of 1 permit woke %d waiters, want 1", n)
		}
		mustRelease(t, two)
		for range 2 {
			held = append(held, redistest.Receive(t, got, redistest.Hang, "a waiter to be served"))
		}
		if n := wakes.since(); n != 2 {
			t.Fatalf("the release of 2 permits woke %d waiters, want 2", n)
		}
		waitQueued(t, rc, name, 1)
		for _, p := range held {
			if p == nil {
				t.FailNow()
			}
			mustRelease(t, p)
		}
		mustRelease(t, redistest.Receive(t, got, redistest.Hang, "the last waiter to be served"))
		redistest.AssertClean(t, rc, name)
	})
}

// TestAcquire_ctx_deadline_matches_both_errors waits for a permit that is
// held until its ctx ends: the error matches both ErrNotObtained and
// context.DeadlineExceeded, and the failed Acquire left nothing behind.
func TestAcquire_ctx_deadline_matches_both_errors(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		s := semaphore.New(redistest.Lockkit(t, rc), name, 2)
		p := mustAcquire(t, s, 2)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := semaphore.New(redistest.Lockkit(t, rc), name, 2).Acquire(ctx, 1)
		redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
		waitQueued(t, rc, name, 0)
		mustRelease(t, p)
		wantAvailable(t, s, 2)
	})
}

// TestAcquire_returns_by_its_deadline_against_a_silent_server silences
// the server: Acquire, TryAcquire and Available return once their ctx
// ends, with the ctx's error.
func TestAcquire_returns_by_its_deadline_against_a_silent_server(t *testing.T) {
	_, rc := redistest.Mini(t)
	silence := &redistest.Silence{}
	rc.AddHook(silence)
	s := semaphore.New(redistest.Lockkit(t, rc), redistest.Unique(t), 1)
	silence.On()
	defer silence.Off()
	calls := map[string]func(context.Context) error{
		"Acquire": func(ctx context.Context) error {
			_, err := s.Acquire(ctx, 1)
			return err
		},
		"TryAcquire": func(ctx context.Context) error {
			_, err := s.TryAcquire(ctx, 1)
			return err
		},
		"Available": func(ctx context.Context) error {
			_, err := s.Available(ctx)
			return err
		},
	}
	errs := redistest.WantDeadlines(t, 50*time.Millisecond, calls)
	for _, name := range []string{"Acquire", "TryAcquire"} {
		if !errors.Is(errs[name], lockkit.ErrNotObtained) {
			t.Errorf("%s against a silent server = %v, want ErrNotObtained too", name, errs[name])
		}
	}
}

// TestRelease_retried_after_a_lost_reply_releases_once loses the reply of
// a Release: the retry reports success without freeing anything twice,
// and a third Release finds nothing held.
func TestRelease_retried_after_a_lost_reply_releases_once(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		drop := &redistest.DropReply{}
		c := redistest.Lockkit(t, rc)
		s := semaphore.New(c, redistest.Unique(t), 3)
		a, b := mustAcquire(t, s, 1), mustAcquire(t, s, 1)
		rc.AddHook(drop)
		drop.Arm()
		ctx := redistest.Ctx(t, redistest.Hang)
		if err := a.Release(ctx); !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("Release with its reply lost = %v", err)
		}
		mustRelease(t, a)
		wantAvailable(t, s, 2)
		if err := a.Release(ctx); !errors.Is(err, lockkit.ErrNotHeld) {
			t.Fatalf("third Release = %v, want ErrNotHeld", err)
		}
		mustRelease(t, b)
		wantAvailable(t, s, 3)
	})
}

// TestAcquire_lost_reply_is_undone loses the reply of an Acquire that
// took its permits: Acquire fails, and the permits are free again when it
// returns.
func TestAcquire_lost_reply_is_undone(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		s, name, _ := lostReplySemaphore(t, rc, 2)
		if _, err := s.Acquire(redistest.Ctx(t, redistest.Hang), 2); !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("Acquire with its reply lost = %v", err)
		}
		wantAvailable(t, s, 2)
		redistest.AssertClean(t, rc, name)
	})
}

// TestTryAcquire_takes_free_permits_and_never_waits: it takes what is
// free, returns nil when not enough is, and does not queue.
func TestTryAcquire_takes_free_permits_and_never_waits(t *testing.T) {
	_, rc := redistest.Mini(t)
	s, name := newSemaphore(t, rc, 2)
	ctx := redistest.Ctx(t, redistest.Hang)
	p, err := s.TryAcquire(ctx, 2)
	if err != nil || p == nil {
		t.Fatalf("TryAcquire of free permits = %v, %v", p, err)
	}
	if ids := p.IDs(); len(ids) != 2 || ids[0] == ids[1] {
		t.Fatalf("IDs = %v, want two distinct ids", ids)
	}
	q, err := s.TryAcquire(ctx, 1)
	if err != nil || q != nil {
		t.Fatalf("TryAcquire of held permits = %v, %v; want nil, nil", q, err)
	}
	waitQueued(t, rc, name, 0)
	hs, err := s.Holders(ctx)
	if err != nil || len(hs) != 1 || hs[0].Permits != 2 || hs[0].Token != p.Token() || hs[0].TTL <= 0 ||
		!strings.HasPrefix(p.IDs()[0], hs[0].ID+"/") {
		t.Fatalf("Holders = %+v, %v; want the one hold of 2", hs, err)
	}
	mustRelease(t, p)
	redistest.AssertClean(t, rc, name)
}

// TestSetPermits_grows_waking_waiters_and_shrinks_without_revoking
// shrinks a semaphore of 2 with both permits held to 1: nothing is
// revoked and nothing is free until both are released; then it grows it
// to 3, which serves a waiter of 2 at once.
func TestSetPermits_grows_waking_waiters_and_shrinks_without_revoking(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		s, name := newSemaphore(t, rc, 2)
		ctx := redistest.Ctx(t, redistest.Hang)
		a, b := mustAcquire(t, s, 1), mustAcquire(t, s, 1)
		if err := s.SetPermits(ctx, 1); err != nil {
			t.Fatal(err)
		}
		wantAvailable(t, s, 0)
		select {
		case <-a.Lost():
			t.Fatal("shrinking revoked a hold")
		default:
		}
		mustRelease(t, a)
		wantAvailable(t, s, 0)
		mustRelease(t, b)
		wantAvailable(t, s, 1)

		got := make(chan *semaphore.Permits, 1)
		acquireTo(ctx, t, semaphore.New(redistest.Lockkit(t, rc), name, 2), 2, got)
		waitQueued(t, rc, name, 1)
		if err := s.SetPermits(ctx, 3); err != nil {
			t.Fatal(err)
		}
		p := served(t, got, "the waiter served by the new permits")
		if n, err := s.Permits(ctx); err != nil || n != 3 {
			t.Fatalf("Permits = %d, %v; want 3", n, err)
		}
		wantAvailable(t, s, 1)
		mustRelease(t, p)
	})
}
