package latch_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/reentrant"
)

func TestNew_invalid_arguments_return_ErrInvalid(t *testing.T) {
	c, _ := redistest.Silent(t)
	cases := redistest.Invalids(c, latchOfOne, []redistest.Invalid[*latch.Latch]{
		{Name: "zero expiry", V: latch.New(c, "x", 1, latch.WithExpiry(0)), Want: "WithExpiry"},
		{Name: "option of locks", V: latch.New(c, "x", 1, lockkit.WithLease(time.Second)), Want: "WithLease"},
		{Name: "zero count", V: latch.New(c, "x", 0), Want: "count"},
		{Name: "negative count", V: latch.New(c, "x", -1), Want: "count"},
		{Name: "huge count", V: latch.New(c, "x", latch.MaxCount+1), Want: "count"},
	})
	ctx := context.Background()
	redistest.EachInvalid(t, cases, func(t *testing.T, l *latch.Latch, want string) {
		_, err := l.CountDown(ctx)
		redistest.WantInvalid(t, "CountDown", err, want)
		_, err = l.Count(ctx)
		redistest.WantInvalid(t, "Count", err, want)
		redistest.WantInvalid(t, "Await", l.Await(ctx), want)
	})
	redistest.WantInvalid(t, "Lock of a reentrant lock given WithExpiry", reentrant.New(c, "x", latch.WithExpiry(time.Second)).Lock(ctx), "WithExpiry")
	//lint:ignore SA1012 a nil ctx is the input under test
	redistest.WantInvalid(t, "Await(nil)", latch.New(c, "x", 1).Await(nil), "nil") //nolint:staticcheck
}

// TestCountDown_opens_the_latch_and_wakes_every_waiter has waiters on two
// Clients (two notifiers, as two processes have) sleep on a latch of 3 and
// checks that the third count-down, not the second, wakes them all, and
// that an open latch stays open.
func TestCountDown_opens_the_latch_and_wakes_every_waiter(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, redistest.Hang)
		name := redistest.Unique(t)
		c1, c2 := redistest.Lockkit(t, rc), redistest.Lockkit(t, rc)
		var waits []<-chan error
		for _, c := range []*lockkit.Client{c1, c1, c2} {
			waits = append(waits, awaitAsync(ctx, latch.New(c, name, 3)))
		}
		waitSleeping(t, c1, name, 2)
		waitSleeping(t, c2, name, 1)

		counter := latch.New(c2, name, 3)
		mustCountDown(t, counter, 2)
		mustCountDown(t, latch.New(c1, name, 3), 1)
		if n, err := counter.Count(ctx); n != 1 || err != nil {
			t.Fatalf("Count = %d, %v; want 1", n, err)
		}
		for i, w := range waits {
			select {
			case err := <-w:
				t.Fatalf("waiter %d returned %v before the latch opened", i, err)
			default:
			}
		}
		mustCountDown(t, counter, 0)
		for i, w := range waits {
			if err := redistest.Receive(t, w, redistest.Hang, "a waiter to return"); err != nil {
				t.Fatalf("waiter %d: %v", i, err)
			}
		}
		// Open for good: late waiters return at once, count-downs do
		// nothing.
		if err := latch.New(c1, name, 3).Await(ctx); err != nil {
			t.Fatalf("Await on an open latch = %v", err)
		}
		mustCountDown(t, counter, 0)
		if n, err := counter.Count(ctx); n != 0 || err != nil {
			t.Fatalf("Count of an open latch = %d, %v; want 0", n, err)
		}
	})
}

// TestAwait_count_down_between_read_and_subscribe_is_not_missed opens the
// latch right after Await's first read, before it subscribes: the read
// after the confirmed subscription must see it open, since the message
// went to nobody.
func TestAwait_count_down_between_read_and_subscribe_is_not_missed(t *testing.T) {
	_, rc := redistest.Mini(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	name := redistest.Unique(t)
	counter := latch.New(redistest.Lockkit(t, rc), name, 1)
	hook := &afterScript{armed: true, then: func(context.Context, redis.Cmder, redis.ProcessHook) error {
		if _, err := counter.CountDown(ctx); err != nil {
			t.Errorf("CountDown: %v", err)
		}
		return nil
	}}
	wrc := hooked(t, rc, hook)
	if err := latch.New(redistest.Lockkit(t, wrc), name, 1).Await(redistest.Ctx(t, 5*time.Second)); err != nil {
		t.Fatalf("Await = %v, want nil: the count-down before the subscription was missed", err)
	}
	if hook.armed {
		t.Fatal("the latch was not opened between the reads")
	}
}

func TestCountDown_resent_by_the_client_counts_once(t *testing.T) {
	_, rc := redistest.Mini(t)
	h := &afterScript{then: resendScript}
	wrc := hooked(t, rc, h)
	name := redistest.Unique(t)
	l := latch.New(redistest.Lockkit(t, wrc), name, 3)
	h.armed = true
	mustCountDown(t, l, 2)
	if h.armed {
		t.Fatal("the count-down was not sent")
	}
	h.armed = true
	mustCountDown(t, l, 1)
	mustCountDown(t, l, 0)
}

func TestAwait_ctx_deadline_matches_both_errors(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := latch.New(c, name, 1).Await(ctx)
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	// The waiter left its channel.
	redistest.Eventually(t, redistest.Hang, "the waiter to leave", func() bool { return c.Notifier().Waiters(channel(c, name)) == 0 })
}

func TestAwait_returns_ErrClosed_when_the_Client_closes(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := lockkit.New(rc)
	name, got := sleepingAwait(t, c)
	_ = c.Close()
	redistest.WantErr(t, redistest.Receive(t, got, redistest.Hang, "Await to return"), lockkit.ErrClosed)
	_, err := latch.New(c, name, 1).CountDown(context.Background())
	redistest.WantErr(t, err, lockkit.ErrClosed)
}

// TestLatch_expires_after_its_last_count_down checks that each count-down
// restarts the expiry, and that an expired latch starts afresh.
func TestLatch_expires_after_its_last_count_down(t *testing.T) {
	mr, rc := redistest.Mini(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	name := redistest.Unique(t)
	l := latch.New(redistest.Lockkit(t, rc), name, 3, latch.WithExpiry(time.Minute))
	key := "lockkit:{" + name + "}"
	if n, err := l.Count(ctx); n != 3 || err != nil || mr.Exists(key) {
		t.Fatalf("Count before any count-down = %d, %v (key exists: %v); want 3 and no key", n, err, mr.Exists(key))
	}
	mustCountDown(t, l, 2)
	mr.FastForward(50 * time.Second)
	mustCountDown(t, l, 1)
	if d := mr.TTL(key); d != time.Minute {
		t.Fatalf("TTL after a count-down = %v, want 1m", d)
	}
	mr.FastForward(time.Minute)
	if n, err := l.Count(ctx); n != 3 || err != nil {
		t.Fatalf("Count of an expired latch = %d, %v; want 3 (afresh)", n, err)
	}
	// An open latch expires too.
	for want := 2; want >= 0; want-- {
		mustCountDown(t, l, want)
	}
	if d := mr.TTL(key); d != time.Minute {
		t.Fatalf("TTL of an open latch = %v, want 1m", d)
	}
	mr.FastForward(time.Minute)
	if mr.Exists(key) {
		t.Fatal("the open latch did not expire")
	}
}
