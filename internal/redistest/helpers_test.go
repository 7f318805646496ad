package redistest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestCtx_ends_after_d(t *testing.T) {
	start := time.Now()
	ctx := Ctx(t, 20*time.Millisecond)
	if deadline, ok := ctx.Deadline(); !ok || deadline.Sub(start) > time.Second {
		t.Fatalf("Deadline() = %v, %v; want about 20ms from now", deadline, ok)
	}
	Receive(t, ctx.Done(), waitTimeout, "the context to end")
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err() = %v, want DeadlineExceeded", ctx.Err())
	}
}

func TestCtx_lives_until_cleanups_registered_after_it_ran(t *testing.T) {
	var ctx context.Context
	errInCleanup := errors.New("cleanup did not run")
	t.Run("inner", func(t *testing.T) {
		ctx = Ctx(t, time.Hour)
		t.Cleanup(func() { errInCleanup = ctx.Err() })
	})
	if errInCleanup != nil {
		t.Fatalf("in a later cleanup ctx.Err() = %v, want nil", errInCleanup)
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("after the test ended ctx.Err() = %v, want Canceled", ctx.Err())
	}
}

func TestEventually_returns_once_cond_holds(t *testing.T) {
	calls := 0
	wantNoFailure(t, func(tb testing.TB) {
		Eventually(tb, waitTimeout, "the third call", func() bool {
			calls++
			return calls == 3
		})
	})
	if calls != 3 {
		t.Fatalf("cond called %d times, want 3", calls)
	}
}

func TestEventually_fails_after_timeout(t *testing.T) {
	const timeout = 30 * time.Millisecond
	start := time.Now()
	wantFailure(t, func(tb testing.TB) {
		Eventually(tb, timeout, "the moon", func() bool { return false })
	}, "timed out after 30ms waiting for the moon")
	if waited := time.Since(start); waited < timeout {
		t.Fatalf("gave up after %v, before the %v timeout", waited, timeout)
	}
}

func TestReceive_returns_a_value_or_fails_after_timeout(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 7
	if got := Receive(t, ch, waitTimeout, "a value"); got != 7 {
		t.Fatalf("Receive = %d, want 7", got)
	}
	closed := make(chan struct{})
	close(closed)
	Receive(t, closed, waitTimeout, "the close")

	wantFailure(t, func(tb testing.TB) {
		Receive(tb, make(chan error), 20*time.Millisecond, "a reply")
	}, "timed out after 20ms waiting for a reply")
}

func TestUnique_is_unique_and_sanitised(t *testing.T) {
	if a, b := Unique(t), Unique(t); a == b {
		t.Fatalf("Unique returned %q twice", a)
	}
	t.Run("sub test/with {odd} chars", func(t *testing.T) {
		n := Unique(t)
		if !strings.HasPrefix(n, "TestUnique_is_unique_and_sanitised_sub_test_with__odd__chars-") {
			t.Fatalf("Unique(t) = %q", n)
		}
	})
	t.Run(strings.Repeat("x", 100), func(t *testing.T) {
		if n := Unique(t); len(n) > maxUniquePrefix+21 { // '-' and a uint64
			t.Fatalf("Unique(t) = %q: %d characters, want the test's name cut", n, len(n))
		}
	})
}

func TestMustLock_and_MustUnlock_bound_the_call_and_fail_on_error(t *testing.T) {
	ok := &fakeLock{}
	wantNoFailure(t, func(tb testing.TB) {
		MustLock(tb, ok)
		MustUnlock(tb, ok)
	})
	if len(ok.deadlines) != 2 {
		t.Fatalf("%d calls, want Lock and Unlock", len(ok.deadlines))
	}
	for i, d := range ok.deadlines {
		if d <= lockTimeout/2 || d > lockTimeout {
			t.Fatalf("call %d had %v left on its context, want %v", i, d, lockTimeout)
		}
	}
	bad := &fakeLock{err: errors.New("boom")}
	wantFailure(t, func(tb testing.TB) { MustLock(tb, bad) }, "Lock(fake): boom")
	wantFailure(t, func(tb testing.TB) { MustUnlock(tb, bad) }, "Unlock(fake): boom")
}

func TestWantHoldCount(t *testing.T) {
	m := &fakeLock{holds: 2}
	wantNoFailure(t, func(tb testing.TB) { WantHoldCount(tb, m, 2) })
	if d := m.deadlines[0]; d <= queryTimeout/2 || d > queryTimeout {
		t.Fatalf("HoldCount had %v left on its context, want %v", d, queryTimeout)
	}
	wantFailure(t, func(tb testing.TB) { WantHoldCount(tb, m, 1) }, "HoldCount = 2, <nil>; want 1")
	m.err = errors.New("down")
	wantFailure(t, func(tb testing.TB) { WantHoldCount(tb, m, 2) }, "HoldCount = 2, down; want 2")
}

func TestWantErr_needs_every_target(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	both := fmt.Errorf("%w and %w", a, b)
	wantNoFailure(t, func(tb testing.TB) { WantErr(tb, both, a, b) })
	wantNoFailure(t, func(tb testing.TB) { WantErr(tb, both) })
	wantFailure(t, func(tb testing.TB) { WantErr(tb, a, a, b) }, `error "a" does not match "b"`)
	wantFailure(t, func(tb testing.TB) { WantErr(tb, nil, a) }, "got nil error")
	wantFailure(t, func(tb testing.TB) { WantErr(tb, nil) }, "got nil error")
}

func TestAssertClean_allows_only_what_a_freed_lock_keeps(t *testing.T) {
	ForEachBackend(t, Backends(), func(t *testing.T, c redis.UniversalClient) {
		ctx := Ctx(t, waitTimeout)
		name := Unique(t)
		base := "lockkit:{" + name + "}"
		set := func(key string, ttl time.Duration) {
			t.Helper()
			if err := c.Set(ctx, key, 1, ttl).Err(); err != nil {
				t.Fatal(err)
			}
		}
		set(base+":fence", 0)
		set(base+":released:17", time.Minute)
		set("unrelated", 0)
		wantNoFailure(t, func(tb testing.TB) { AssertClean(tb, c, name) })

		set(base, time.Minute)
		set(base+":released:18", 0) // no TTL: it would never go
		got := failures(t, func(tb testing.TB) { AssertClean(tb, c, name) })
		for _, want := range []string{base + " (TTL ", base + ":released:18 (no TTL)"} {
			if !strings.Contains(got, want) {
				t.Fatalf("AssertClean reported %q; want it to name %q", got, want)
			}
		}
		if strings.Contains(got, ":fence") || strings.Contains(got, "unrelated") {
			t.Fatalf("AssertClean reported %q; the fencing counter and other locks' keys are fine", got)
		}
	})
}

func TestHammer_counts_the_holds_of_a_working_lock(t *testing.T) {
	c, name := newQueueLock(t)
	lockers := []Locker{&queueLock{c: c, name: name}, &queueLock{c: c, name: name}, &queueLock{c: c, name: name}}
	holds, err := Hammer(Ctx(t, time.Minute), lockers, 20)
	if err != nil || holds != 60 {
		t.Fatalf("Hammer = %d, %v; want 60 holds, no error", holds, err)
	}
}

func TestHammer_reports_overlap_of_a_lock_that_excludes_nobody(t *testing.T) {
	lockers := make([]Locker, 8)
	for i := range lockers {
		lockers[i] = noLock{}
	}
	if _, err := Hammer(Ctx(t, time.Minute), lockers, 1000); !errors.Is(err, ErrOverlap) {
		t.Fatalf("Hammer = %v, want ErrOverlap", err)
	}
}

func TestHammer_stops_a_goroutine_at_its_first_error(t *testing.T) {
	holds, err := Hammer(Ctx(t, time.Minute), []Locker{&failingLock{n: 3}}, 10)
	if !errors.Is(err, errLockFailed) || holds != 2 {
		t.Fatalf("Hammer = %d, %v; want 2 holds, then the Lock error", holds, err)
	}
}
