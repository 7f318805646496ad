package semaphore_test

import (
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestAcquire_waiter_cut_off_is_served_after_the_cut_heals cuts a
// sleeping waiter's Client off the server and releases the permit it
// waits for meanwhile, so that its wake-up is lost with the broken
// pub/sub connection: once its notifier has found the connection broken
// and the cut heals, the waiter tries again and is served.
func TestAcquire_waiter_cut_off_is_served_after_the_cut_heals(t *testing.T) {
	srv := redistest.StartServer(t)
	direct := srv.Client(t)
	proxy := redistest.StartProxy(t, srv.Addr())
	rc := redis.NewClient(&redis.Options{Addr: proxy.Addr()})
	t.Cleanup(func() { _ = rc.Close() })
	c := redistest.Lockkit(t, rc)
	s, name := newSemaphore(t, direct, 1)
	held := mustAcquire(t, s, 1)
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
	p := redistest.Receive(t, got, redistest.Hang, "the waiter to be served after the cut healed")
	if p == nil {
		t.FailNow()
	}
	mustRelease(t, p)
	redistest.AssertClean(t, direct, name)
}
