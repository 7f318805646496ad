package semaphore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// cutOffHolder starts a server and a Proxy to it, and takes the only
// permit of a new semaphore through a client of the server that bypasses
// the proxy. It returns that client, the proxy, a Client through the
// proxy, the semaphore's name and the permit held.
func cutOffHolder(t *testing.T) (direct *redis.Client, proxy *redistest.Proxy, c *lockkit.Client, name string, held *semaphore.Permits) {
	t.Helper()
	srv := redistest.StartServer(t)
	direct = srv.Client(t)
	proxy = redistest.StartProxy(t, srv.Addr())
	c = redistest.Lockkit(t, proxy.Client(t))
	s, name := newSemaphore(t, direct, 1)
	return direct, proxy, c, name, mustAcquire(t, s, 1)
}

// TestAcquire_waiter_cut_off_is_served_after_the_cut_heals cuts a
// sleeping waiter's Client off the server and releases the permit it
// waits for meanwhile, so that its wake-up is lost with the broken
// pub/sub connection: once its notifier has found the connection broken
// and the cut heals, the waiter tries again and is served.
func TestAcquire_waiter_cut_off_is_served_after_the_cut_heals(t *testing.T) {
	direct, proxy, c, name, held := cutOffHolder(t)
	got := acquireAsync(redistest.Ctx(t, redistest.Hang), t, semaphore.New(c, name, 1), 1)
	waitSleeping(t, direct, c, name, 1)
	members, err := direct.ZRange(redistest.Ctx(t, redistest.Hang), "lockkit:{"+name+"}:waiters", 0, -1).Result()
	if err != nil || len(members) != 1 {
		t.Fatalf("queue = %v, %v; want one waiter", members, err)
	}
	_, id, _ := strings.Cut(members[0], ":")
	ch := core.KeysFor(c, name).Chan("ch") + ":" + id

	proxy.Cut()
	mustRelease(t, held)
	redistest.Eventually(t, redistest.Hang, "the waiter's notifier to find its connection broken", func() bool {
		return c.Notifier().Sleeping(ch) == 0
	})
	redistest.NotYet(t, got, "the waiter returned while cut off")
	proxy.Heal()
	p := served(t, got, "the waiter to be served after the cut healed")
	mustRelease(t, p)
	redistest.AssertClean(t, direct, name)
}

// TestAcquire_given_up_while_cut_off_returns_and_its_place_lapses cuts a
// sleeping waiter's Client off the server for good and ends its ctx: the
// Acquire returns about by then (its clean-up cannot reach the server and
// goes on in the background), and its place in the queue lapses after the
// waiter timeout, so that the waiter behind it is served by the release.
func TestAcquire_given_up_while_cut_off_returns_and_its_place_lapses(t *testing.T) {
	direct, proxy, c, name, held := cutOffHolder(t)
	ctx, giveUp := context.WithCancel(redistest.Ctx(t, redistest.Hang))
	done := make(chan error, 1)
	go func() {
		_, err := semaphore.New(c, name, 1).Acquire(ctx, 1)
		done <- err
	}()
	waitSleeping(t, direct, c, name, 1)
	behind := acquireAsync(redistest.Ctx(t, redistest.Hang), t, semaphore.New(redistest.Lockkit(t, direct), name, 1), 1)
	waitQueued(t, direct, name, 2)

	proxy.Cut()
	start := time.Now()
	giveUp()
	redistest.WantErr(t, redistest.Receive(t, done, redistest.Hang, "the cut-off Acquire to return"), lockkit.ErrNotObtained, context.Canceled)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("the cut-off Acquire returned %v after its ctx ended", d)
	}
	mustRelease(t, held)
	p := served(t, behind, "the waiter behind the cut-off one to be served")
	mustRelease(t, p)
	redistest.AssertClean(t, direct, name)
}
