package reentrant_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestTryLock_fails_while_a_release_keeps_the_lock_for_the_woken_process:
// a release keeps the free lock for the waiting process it woke, for up to
// 100 ms: meanwhile a TryLock by another process fails, the releaser's
// included, and one by another Mutex of the woken process's Client
// succeeds. A try whose checks did not all end within the kept time left
// is inconclusive and is run again.
func TestTryLock_fails_while_a_release_keeps_the_lock_for_the_woken_process(t *testing.T) {
	srv := redistest.StartServer(t)
	for range 5 {
		if tryWhileKept(t, srv) {
			return
		}
	}
	t.Fatal("no try checked the TryLocks within the time the lock was kept")
}

// tryWhileKept makes a release keep the lock for a woken process, whose
// waiter's acquire is held up before it reaches the server so that the
// lock stays kept, and checks the TryLocks of another process, of the
// releaser and of another Mutex of the woken process meanwhile. It
// reports whether they all ended within the kept time (else it checks
// nothing of their outcome).
func tryWhileKept(t *testing.T, srv *redistest.Server) (conclusive bool) {
	t.Helper()
	c := srv.Client(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	name := redistest.Unique(t)
	holder := reentrant.New(redistest.Lockkit(t, srv.Client(t)), name)
	bystander := reentrant.New(redistest.Lockkit(t, srv.Client(t)), name)
	var first atomic.Bool
	hold := &redistest.Silence{Max: redistest.Hang, Match: func(cmd redis.Cmder) bool {
		return redistest.IsScript(cmd) && first.CompareAndSwap(false, true)
	}}
	wc := srv.Client(t)
	wc.AddHook(hold)
	woken := redistest.Lockkit(t, wc)
	defer hold.Off()
	waiter, sibling := reentrant.New(woken, name), reentrant.New(woken, name)

	redistest.MustLock(t, holder)
	got := redistest.LockAsync(ctx, waiter)
	waitAsleep(t, woken, name, 1)
	hold.On() // the woken waiter's next attempt waits before it is sent
	redistest.MustUnlock(t, holder)
	redistest.Eventually(t, 10*time.Second, "the woken waiter's attempt to be held up", func() bool { return hold.Held() == 1 })

	start := time.Now()
	left, err := c.PTTL(ctx, "lockkit:{"+name+"}:turn").Result()
	if err != nil {
		t.Fatal(err)
	}
	okOther, errOther := bystander.TryLock(ctx)
	okHolder, errHolder := holder.TryLock(ctx)
	okSibling, errSibling := sibling.TryLock(ctx)
	conclusive = left > 0 && time.Since(start) < left
	for _, err := range []error{errOther, errHolder, errSibling} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if conclusive {
		if okOther || okHolder {
			t.Fatalf("while the lock was kept for the woken process: TryLock by another process = %v, by the releaser = %v; want false", okOther, okHolder)
		}
		if !okSibling {
			t.Fatal("TryLock by another Mutex of the woken process's Client failed while the lock was kept for that process")
		}
	}
	for _, m := range []*reentrant.Mutex{bystander, holder, sibling} {
		if m.Token() != 0 {
			redistest.MustUnlock(t, m)
		}
	}
	hold.Off()
	if err := redistest.Receive(t, got, 10*time.Second, "the woken waiter's Lock"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, waiter)
	redistest.AssertClean(t, c, name)
	return conclusive
}
