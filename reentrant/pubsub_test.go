package reentrant_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// lockOnce starts n owners of lock name on lc that each lock it once and
// unlock it, and reports on the channel when all are done.
func lockOnce(ctx context.Context, lc *lockkit.Client, name string, n int) <-chan error {
	owners := make([]redistest.Locker, n)
	for i := range owners {
		owners[i] = reentrant.New(lc, name)
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

func TestLost_fires_after_redis_restart(t *testing.T) {
	srv, lc, name := redistest.OnServer(t)
	const lease = 3 * time.Second // renewed every second
	a := reentrant.New(lc, name, lockkit.WithWatchdogTimeout(lease))
	redistest.MustLock(t, a)
	srv.Restart(t) // no persistence: the lock is gone
	redistest.Receive(t, a.Lost(), lease, "the lost signal within the lease")
	err := a.Unlock(redistest.Ctx(t, 5*time.Second))
	redistest.WantErr(t, err, lockkit.ErrLost)
	redistest.WantErr(t, a.Unlock(redistest.Ctx(t, 5*time.Second)), lockkit.ErrNotHeld)
}

// TestLost_fires_at_once_when_the_pubsub_connection_drops checks that a
// holder whose Client has a subscription learns of a restart that lost its
// lock when the pub/sub connection drops, not at its next renewal (10 s
// away with the default lease).
func TestLost_fires_at_once_when_the_pubsub_connection_drops(t *testing.T) {
	srv, lc, name := redistest.OnServer(t)
	holder := reentrant.New(lc, name)
	redistest.MustLock(t, holder)
	// Another lock of the Client waits, so the Client is subscribed.
	other := reentrant.New(lc, redistest.Unique(t))
	blocker := reentrant.New(redistest.Lockkit(t, srv.Client(t)), other.Name())
	redistest.MustLock(t, blocker)
	waiting := redistest.LockAsync(redistest.Ctx(t, 30*time.Second), other)
	waitAsleep(t, lc, other.Name(), 1)

	srv.Restart(t) // no persistence: every lock is gone
	redistest.Receive(t, holder.Lost(), 5*time.Second, "the lost signal well before the next renewal")
	redistest.WantErr(t, holder.Unlock(redistest.Ctx(t, 5*time.Second)), lockkit.ErrLost)
	if err := redistest.Receive(t, waiting, 30*time.Second, "the waiter's Lock"); err != nil {
		t.Fatalf("waiter after the restart: %v", err)
	}
	redistest.MustUnlock(t, other)
}

func TestLock_survives_pubsub_connection_kill(t *testing.T) {
	srv := redistest.StartServer(t)
	holderClient, c := srv.Client(t), srv.Client(t)
	lc := redistest.Lockkit(t, c)
	name := redistest.Unique(t)
	holder := reentrant.New(redistest.Lockkit(t, holderClient), name)
	redistest.MustLock(t, holder)

	const G = 16
	// The whole test must end long before a waiter could fall back on the
	// holder's 30 s lease: only wake-ups can get them through in time.
	ctx := redistest.Ctx(t, 15*time.Second)
	done := lockOnce(ctx, lc, name, G)
	redistest.Eventually(t, 10*time.Second, "16 waiters", func() bool { return lc.Notifier().Waiters(channelOf(lc, name)) == G })

	// The waiters count before their subscription reaches the server: kill
	// the connection once it is there.
	redistest.Eventually(t, 10*time.Second, "the pub/sub connection to be killed", func() bool {
		killed, err := holderClient.ClientKillByFilter(ctx, "TYPE", "pubsub").Result()
		return err == nil && killed == 1
	})
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
			lc := redistest.Lockkit(t, c)
			name := redistest.Unique(t)
			holder := reentrant.New(lc, name, lockkit.WithLease(time.Minute))
			redistest.MustLock(t, holder)
			before := goleak.IgnoreCurrent()

			ctx, cancel := context.WithCancel(context.Background())
			if how == "deadline" {
				ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
			}
			defer cancel()
			got := make(chan error, 1)
			go func() { got <- reentrant.New(lc, name).Lock(ctx) }()
			waitAsleep(t, lc, name, 1)
			if how == "cancel" {
				cancel()
			}
			err := redistest.Receive(t, got, 5*time.Second, "Lock to return after its ctx ended")
			redistest.WantErr(t, err, lockkit.ErrNotObtained, ctx.Err())
			// The channel lingers a moment, then is dropped.
			redistest.Eventually(t, 5*time.Second, "the channel to be dropped locally", func() bool {
				return lc.Notifier().Channels() == 0
			})
			channel := channelOf(lc, name)
			redistest.Eventually(t, 5*time.Second, "the server to drop the subscription", func() bool {
				subs, err := c.PubSubNumSub(context.Background(), channel).Result()
				return err == nil && subs[channel] == 0
			})
			// No goroutine of the waiter or the notifier is left.
			redistest.Eventually(t, 5*time.Second, "no goroutine left", func() bool {
				return goleak.Find(before) == nil
			})
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
	lc := redistest.Lockkit(t, c)
	name := redistest.Unique(t)
	holder := reentrant.New(redistest.Lockkit(t, holderClient), name)
	redistest.MustLock(t, holder)

	const G = 32
	done := lockOnce(redistest.Ctx(t, 30*time.Second), lc, name, G)
	waitAsleep(t, lc, name, G)
	counter.Reset()
	// Sleeping waiters send nothing while the lock stays held: watched for
	// 2.5 s, well within the holder's lease, the only timer they keep.
	quiet := time.Now()
	for time.Since(quiet) < 2500*time.Millisecond {
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
}
