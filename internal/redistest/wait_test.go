package redistest

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestCtx_ends_after_d(t *testing.T) {
	start := time.Now()
	ctx := Ctx(t, 20*time.Millisecond)
	if deadline, ok := ctx.Deadline(); !ok || deadline.Sub(start) > time.Second {
		t.Fatalf("Deadline() = %v, %v; want about 20ms from now", deadline, ok)
	}
	Receive(t, ctx.Done(), 10*time.Second, "the context to end")
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
		Eventually(tb, 10*time.Second, "the third call", func() bool {
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
	if got := Receive(t, ch, 10*time.Second, "a value"); got != 7 {
		t.Fatalf("Receive = %d, want 7", got)
	}
	closed := make(chan struct{})
	close(closed)
	Receive(t, closed, 10*time.Second, "the close")

	wantFailure(t, func(tb testing.TB) {
		Receive(tb, make(chan error), 20*time.Millisecond, "a reply")
	}, "timed out after 20ms waiting for a reply")
}
