package reentrant_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
	"github.com/lockkit/lockkit/reentrant"
)

func TestLease_fixed_expires_by_itself(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		name := redistest.Unique(t)
		const lease = 300 * time.Millisecond
		a := reentrant.New(c, name, reentrant.WithLease(lease))
		redistest.MustLock(t, a)
		b := reentrant.New(c, name)
		if mr, ok := redistest.MiniFor(c); ok {
			// miniredis TTLs do not count down by themselves.
			mr.FastForward(lease)
		}
		// b gets the lock although a never unlocks.
		if err := b.Lock(redistest.Ctx(t, lease+2*time.Second)); err != nil {
			t.Fatalf("Lock after the fixed lease: %v", err)
		}
		redistest.Receive(t, a.Lost(), 5*time.Second, "the lost signal of the expired hold")
		if err := a.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, reentrant.ErrLost) {
			t.Fatalf("Unlock after the lease ended = %v, want ErrLost", err)
		}
		// The late Unlock did not free b's newer hold.
		redistest.WantHoldCount(t, b, 1)
		redistest.MustUnlock(t, b)
	})
}

func TestWatchdog_keeps_lock_past_several_leases(t *testing.T) {
	// Real servers only: miniredis TTLs do not count down by themselves.
	servers := []redistest.Backend{redistest.ServerBackend, redistest.ClusterBackend}
	redistest.ForEachBackend(t, servers, func(t *testing.T, c redis.UniversalClient) {
		const lease = 300 * time.Millisecond
		// Several holds in different slots, renewed together (on
		// Cluster the pipeline is split by slot).
		var holds []*reentrant.Mutex
		for range 4 {
			m := reentrant.New(c, redistest.Unique(t), reentrant.WithWatchdogTimeout(lease))
			redistest.MustLock(t, m)
			holds = append(holds, m)
		}
		// Another owner waits for more than three leases while the
		// holders sleep; it must not get the lock.
		ctx, cancel := context.WithTimeout(context.Background(), 4*lease)
		defer cancel()
		err := reentrant.New(c, holds[0].Name()).Lock(ctx)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("other owner Lock = %v; want the deadline to pass while the lock is held", err)
		}
		for _, m := range holds {
			select {
			case <-m.Lost():
				t.Fatal("hold reported lost")
			default:
			}
			if d, err := m.TTL(redistest.Ctx(t, time.Second)); err != nil || d <= 0 {
				t.Fatalf("TTL = %v, %v; want a live lease", d, err)
			}
			redistest.WantHoldCount(t, m, 1)
			redistest.MustUnlock(t, m)
		}
	})
}

func TestLost_fires_after_redis_restart(t *testing.T) {
	srv := redistest.StartServer(t)
	c := srv.Client(t)
	name := redistest.Unique(t)
	const lease = 3 * time.Second // renewed every second
	a := reentrant.New(c, name, reentrant.WithWatchdogTimeout(lease))
	redistest.MustLock(t, a)
	srv.Restart(t) // no persistence: the lock is gone
	restarted := time.Now()
	redistest.Receive(t, a.Lost(), lease, "the lost signal within the lease")
	if d := time.Since(restarted); d > lease/3+time.Second {
		t.Fatalf("lost signal after %v; want within one watchdog period (%v) and some slack", d, lease/3)
	}
	err := a.Unlock(redistest.Ctx(t, 5*time.Second))
	if !errors.Is(err, reentrant.ErrLost) || errors.Is(err, reentrant.ErrNotHeld) {
		t.Fatalf("Unlock after restart = %v, want ErrLost", err)
	}
	if err := a.Unlock(redistest.Ctx(t, 5*time.Second)); !errors.Is(err, reentrant.ErrNotHeld) {
		t.Fatalf("second Unlock = %v, want ErrNotHeld", err)
	}
}

func TestLock_survives_pubsub_connection_kill(t *testing.T) {
	srv := redistest.StartServer(t)
	holderClient, c := srv.Client(t), srv.Client(t)
	name := redistest.Unique(t)
	holder := reentrant.New(holderClient, name)
	redistest.MustLock(t, holder)

	const G = 16
	// The whole test must end long before a waiter could fall back on the
	// holder's 30 s lease: only wake-ups can get them through in time.
	ctx := redistest.Ctx(t, 15*time.Second)
	done := lockOnce(ctx, c, name, G)
	redistest.Eventually(t, 10*time.Second, "16 waiters", func() bool { return notify.For(c).Waiters(channelOf(name)) == G })

	killed, err := holderClient.ClientKillByFilter(ctx, "TYPE", "pubsub").Result()
	if err != nil || killed != 1 {
		t.Fatalf("CLIENT KILL TYPE pubsub = %d, %v; want 1 connection killed", killed, err)
	}
	redistest.MustUnlock(t, holder)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestLock_cancelled_mid_wait_leaves_nothing_behind(t *testing.T) {
	for _, how := range []string{"cancel", "deadline"} {
		t.Run(how, func(t *testing.T) {
			srv := redistest.StartServer(t)
			c := srv.Client(t)
			name := redistest.Unique(t)
			holder := reentrant.New(c, name, reentrant.WithLease(time.Minute))
			redistest.MustLock(t, holder)
			before := goleak.IgnoreCurrent()

			ctx, cancel := context.WithCancel(context.Background())
			if how == "deadline" {
				ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
			}
			defer cancel()
			got := make(chan error, 1)
			go func() { got <- reentrant.New(c, name).Lock(ctx) }()
			waitAsleep(t, c, name, 1)
			if how == "cancel" {
				cancel()
			}
			err := redistest.Receive(t, got, 5*time.Second, "Lock to return after its ctx ended")
			redistest.WantErr(t, err, reentrant.ErrNotObtained, ctx.Err())
			if n := notify.For(c).Channels(); n != 0 {
				t.Fatalf("%d channels still subscribed locally", n)
			}
			channel := channelOf(name)
			redistest.Eventually(t, 5*time.Second, "the server to drop the subscription", func() bool {
				subs, err := c.PubSubNumSub(context.Background(), channel).Result()
				return err == nil && subs[channel] == 0
			})
			// No goroutine of the waiter, the notifier or the watchdog
			// is left.
			goleak.VerifyNone(t, before)
			redistest.MustUnlock(t, holder)
		})
	}
}

// TestLock_no_herd checks that waiters do not stampede: each release wakes
// one waiter, and sleeping waiters send nothing.
func TestLock_no_herd(t *testing.T) {
	srv := redistest.StartServer(t)
	holderClient, c := srv.Client(t), srv.Client(t)
	counter := redistest.CountCommands(c)
	name := redistest.Unique(t)
	holder := reentrant.New(holderClient, name)
	redistest.MustLock(t, holder)

	const G = 32
	done := lockOnce(redistest.Ctx(t, 30*time.Second), c, name, G)
	waitAsleep(t, c, name, G)
	counter.Reset()
	// Sleeping waiters send nothing while the lock stays held.
	quiet := time.Now()
	for time.Since(quiet) < 200*time.Millisecond {
		if n := counter.Total(); n != 0 {
			t.Fatalf("waiters sent %d commands while the lock was held", n)
		}
		time.Sleep(10 * time.Millisecond)
	}

	redistest.MustUnlock(t, holder)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Each acquisition costs its acquire; a waiter that loses a race to a
	// newcomer tries again. Unlocks are one script each.
	attempts := counter.Scripts() - G
	if per := float64(attempts) / G; per > 2 {
		t.Fatalf("%.2f acquire attempts per acquisition, want at most 2 (%d attempts for %d acquisitions)", per, attempts, G)
	}
	t.Logf("%d acquire attempts for %d acquisitions; %d commands in all", attempts, G, counter.Total())
}

// lockOnce starts n owners of lock name on c that each lock it once and
// unlock it, checked for overlap by [redistest.Hammer], and returns a
// channel that yields the outcome once every one has finished.
func lockOnce(ctx context.Context, c redis.UniversalClient, name string, n int) <-chan error {
	owners := make([]redistest.Locker, n)
	for i := range owners {
		owners[i] = reentrant.New(c, name)
	}
	done := make(chan error, 1)
	go func() {
		holds, err := redistest.Hammer(ctx, owners, 1)
		if err == nil && holds != n {
			err = fmt.Errorf("%d of %d waiters acquired", holds, n)
		}
		done <- err
	}()
	return done
}

func TestUnlock_retry_after_lost_reply(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		hook := &redistest.DropReply{}
		c.AddHook(hook)
		name := redistest.Unique(t)
		m := reentrant.New(c, name)
		redistest.MustLock(t, m)
		redistest.MustLock(t, m)

		// A partial unlock whose reply is lost, then retried: one unlock.
		hook.Arm()
		if err := m.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("Unlock with lost reply = %v", err)
		}
		redistest.MustUnlock(t, m)
		redistest.WantHoldCount(t, m, 1)

		// The final unlock's reply is lost, then retried: no false error.
		hook.Arm()
		if err := m.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("Unlock with lost reply = %v", err)
		}
		// Meanwhile someone else takes the lock; the retry must not free it.
		other := reentrant.New(c, name)
		redistest.MustLock(t, other)
		redistest.MustUnlock(t, m)
		if err := m.Unlock(redistest.Ctx(t, time.Second)); !errors.Is(err, reentrant.ErrNotHeld) {
			t.Fatalf("Unlock after the retry settled = %v, want ErrNotHeld", err)
		}
		redistest.WantHoldCount(t, other, 1)
		redistest.MustUnlock(t, other)
	})
}

func TestNew_rejects_bad_input(t *testing.T) {
	_, c := redistest.Mini(t)
	counter := redistest.CountCommands(c)
	var typedNil *redis.Client
	cases := []struct {
		name   string
		client redis.UniversalClient
		lock   string
		opts   []reentrant.Option
		want   string
	}{
		{"nil client", nil, "a", nil, "client must not be nil"},
		{"typed nil client", typedNil, "a", nil, "client must not be nil"},
		{"empty name", c, "", nil, "lock name must not be empty"},
		{"zero lease", c, "a", []reentrant.Option{reentrant.WithLease(0)}, "WithLease"},
		{"negative lease", c, "a", []reentrant.Option{reentrant.WithLease(-time.Second)}, "WithLease"},
		{"zero watchdog timeout", c, "a", []reentrant.Option{reentrant.WithWatchdogTimeout(0)}, "WithWatchdogTimeout"},
		{"negative watchdog timeout", c, "a", []reentrant.Option{reentrant.WithWatchdogTimeout(-1)}, "WithWatchdogTimeout"},
		{"empty owner", c, "a", []reentrant.Option{reentrant.WithOwner("")}, "WithOwner"},
		{"reserved owner", c, "a", []reentrant.Option{reentrant.WithOwner(":token")}, "WithOwner"},
		{"empty prefix", c, "a", []reentrant.Option{reentrant.WithPrefix("")}, "WithPrefix"},
		{"prefix with brace", c, "a", []reentrant.Option{reentrant.WithPrefix("a{b")}, "WithPrefix"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := reentrant.New(tc.client, tc.lock, tc.opts...)
			ctx := redistest.Ctx(t, time.Second)
			_, tryErr := m.TryLock(ctx)
			_, forceErr := m.ForceUnlock(ctx)
			_, lockedErr := m.IsLocked(ctx)
			_, countErr := m.HoldCount(ctx)
			_, ttlErr := m.TTL(ctx)
			for i, err := range []error{m.Lock(ctx), tryErr, m.Unlock(ctx), forceErr, lockedErr, countErr, ttlErr} {
				if !errors.Is(err, reentrant.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("method %d: err = %v; want ErrInvalid mentioning %q", i, err, tc.want)
				}
			}
			if m.Token() != 0 || m.Lost() != nil {
				t.Fatal("invalid mutex reports a hold")
			}
		})
	}
	if n := counter.Total(); n != 0 {
		t.Fatalf("%d commands sent for invalid input", n)
	}
}

func TestLock_lost_acquire_reply_leaves_no_stray_hold(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		hook := &redistest.DropReply{}
		c.AddHook(hook)
		name := redistest.Unique(t)
		m := reentrant.New(c, name)

		// A fresh hold whose reply is lost is taken back.
		hook.Arm()
		if ok, err := m.TryLock(redistest.Ctx(t, time.Second)); ok || !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("TryLock with lost reply = %v, %v", ok, err)
		}
		if locked, _ := m.IsLocked(redistest.Ctx(t, time.Second)); locked {
			t.Fatal("a hold nobody knows of blocks the lock")
		}

		// A re-entry whose reply is lost is cut back.
		redistest.MustLock(t, m)
		hook.Arm()
		if err := m.Lock(redistest.Ctx(t, time.Second)); !errors.Is(err, redistest.ErrReplyDropped) {
			t.Fatalf("Lock with lost reply = %v", err)
		}
		redistest.WantHoldCount(t, m, 1)
		redistest.MustUnlock(t, m)
		if locked, _ := m.IsLocked(redistest.Ctx(t, time.Second)); locked {
			t.Fatal("lock still held after the one known hold was released")
		}
	})
}
