package conformance

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// lostWithin waits for l's lost signal, if it has one.
func lostWithin(t testing.TB, l lockkit.Locker, d time.Duration) {
	t.Helper()
	if lo, ok := l.(loser); ok {
		redistest.Receive(t, lo.Lost(), d, "the lost signal")
	}
}

// eventuallyTaken waits until a new owner of name gets the lock, and
// releases it.
func eventuallyTaken(t testing.TB, e *env, name string) {
	t.Helper()
	other := e.lock(name)
	redistest.Eventually(t, waitTimeout, "another owner to get the lock", func() bool {
		ok, err := other.TryLock(ctx(t))
		return ok && err == nil
	})
	redistest.MustUnlock(t, other)
}

func testFixedLease(t *testing.T, e *env) {
	name := redistest.Unique(t)
	const lease = 300 * time.Millisecond
	m := e.lock(name, lockkit.WithLease(lease))
	redistest.MustLock(t, m)
	lostWithin(t, m, waitTimeout)
	if mr, ok := redistest.MiniFor(e.rc); ok {
		mr.FastForward(lease) // miniredis keys do not expire by the clock
	}
	eventuallyTaken(t, e, name)
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrLost)
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
}

// testFixedLeaseToldFirst checks that the holder of a fixed lease is told
// before another owner can take the lock: that owner, on a Client of its
// own, tries again and again while the lease runs out, and when it gets
// the lock, the holder's lost signal has closed already. On a real server
// alone (miniredis's keys expire only when the test moves its clock).
func testFixedLeaseToldFirst(t *testing.T, e *env) {
	if _, ok := redistest.MiniFor(e.rc); ok {
		return
	}
	other := redistest.Lockkit(t, e.newRC(t))
	for i := range 5 {
		name := redistest.Unique(t)
		m := e.lock(name, lockkit.WithLease(100*time.Millisecond))
		lo, ok := m.(loser)
		if !ok {
			// A multi-lock: its members, which have a lost signal, run this.
			return
		}
		redistest.MustLock(t, m)
		o := e.k.New(other, name)
		for {
			took, err := o.TryLock(ctx(t))
			if err != nil {
				t.Fatalf("hold %d: another owner's TryLock: %v", i, err)
			}
			if took {
				break
			}
		}
		if !redistest.Closed(lo.Lost()) {
			t.Fatalf("hold %d: another owner took the lock before the holder's lost signal closed", i)
		}
		redistest.MustUnlock(t, o)
	}
}

// testMaxHold checks that WithMaxHold ends a hold that is never released:
// it is renewed until the maximum time (past several leases), then lost
// with watchdog.ErrMaxHold, and the lock frees itself.
func testMaxHold(t *testing.T, e *env) {
	name := redistest.Unique(t)
	const lease, maxHold = time.Second, 2500 * time.Millisecond
	m := e.lock(name, lockkit.WithWatchdogTimeout(lease), lockkit.WithMaxHold(maxHold))
	if _, ok := m.(loser); !ok {
		// A multi-lock: its members, which have a lost signal, run this.
		return
	}
	if _, ok := redistest.MiniFor(e.rc); ok {
		// Other cases move the shared miniredis's clock forward, which
		// would end this short lease early; real servers run this.
		return
	}
	start := time.Now()
	redistest.MustLock(t, m)
	lostWithin(t, m, waitTimeout)
	if held := time.Since(start); held < maxHold {
		t.Fatalf("hold lost after %v, before its maximum hold time %v", held, maxHold)
	}
	eventuallyTaken(t, e, name)
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrLost, watchdog.ErrMaxHold)
}

// deleteKeys deletes every key of the lock name behind the lock's back, as
// a Redis restart that lost the data would.
func deleteKeys(t testing.TB, rc redis.UniversalClient, name string) {
	t.Helper()
	forEachKey(t, rc, name, func(ctx context.Context, c *redis.Client, key string) error {
		return c.Del(ctx, key).Err()
	})
}

// forEachKey calls f for every key of the lock name, on the node that has
// it.
func forEachKey(t testing.TB, rc redis.UniversalClient, name string, f func(ctx context.Context, c *redis.Client, key string) error) {
	t.Helper()
	each := func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, "*"+name+"*", 0).Iterator()
		for iter.Next(ctx) {
			if err := f(ctx, c, iter.Val()); err != nil {
				return err
			}
		}
		return iter.Err()
	}
	var err error
	switch c := rc.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx(t), each)
	case *redis.Client:
		err = each(ctx(t), c)
	default:
		t.Fatalf("unknown client type %T", rc)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// testLockAfterLoss checks that the owner's next Lock after a loss takes a
// fresh hold although the lost one is in Redis again: the watchdog found
// its hash gone (moved aside here), and it came back with a minute to
// live, as a hold may linger after a renewal that did not get through in
// time. The fresh hold has a larger token and a count of one, and its
// Unlock frees the lock.
func testLockAfterLoss(t *testing.T, e *env) {
	if _, ok := e.lock("x").(loser); !ok {
		return // a composition: its members, which have a lost signal, run this
	}
	name := redistest.Unique(t)
	m := e.lock(name, lockkit.WithWatchdogTimeout(300*time.Millisecond))
	redistest.MustLock(t, m)
	tk, hasToken := m.(tokener)
	var lost int64
	if hasToken {
		lost = tk.Token()
	}
	key := lockkit.DefaultPrefix + ":{" + name + "}"
	aside := key + ":aside" // in the same slot
	// Moved aside with a minute to live, in one transaction: the hold's
	// own short lease must not end it while the watchdog finds it gone.
	if _, err := e.rc.TxPipelined(ctx(t), func(p redis.Pipeliner) error {
		p.PExpire(ctx(t), key, time.Minute)
		p.Rename(ctx(t), key, aside)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	lostWithin(t, m, waitTimeout)
	if err := e.rc.Rename(ctx(t), aside, key).Err(); err != nil {
		t.Fatal(err)
	}
	forEachKey(t, e.rc, name, func(ctx context.Context, c *redis.Client, key string) error {
		return c.PExpire(ctx, key, time.Minute).Err()
	})
	redistest.MustLock(t, m)
	if hasToken && tk.Token() <= lost {
		t.Errorf("token after the loss %d, want more than the lost hold's %d", tk.Token(), lost)
	}
	if c, ok := m.(counter); ok {
		if n, err := c.HoldCount(ctx(t)); n != 1 || err != nil {
			t.Errorf("HoldCount after the Lock that followed the loss = %d, %v; want 1", n, err)
		}
	}
	redistest.MustUnlock(t, m)
	eventuallyTaken(t, e, name)
}

func testVanished(t *testing.T, e *env) {
	if _, ok := e.lock("x").(loser); !ok {
		return // no lost signal: Unlock reports the loss, checked elsewhere
	}
	name := redistest.Unique(t)
	m := e.lock(name, lockkit.WithWatchdogTimeout(300*time.Millisecond))
	redistest.MustLock(t, m)
	deleteKeys(t, e.rc, name)
	lostWithin(t, m, waitTimeout)
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrLost)
	eventuallyTaken(t, e, name)
}

// testVanishedFixedLease checks that a hold with a fixed lease whose keys
// vanish (as a restart without persistence or a failover loses them) is
// reported lost within about a third of its lease, as a renewed one is,
// not at the lease's end: the watchdog verifies it as often as it would
// renew it.
func testVanishedFixedLease(t *testing.T, e *env) {
	if _, ok := e.lock("x").(loser); !ok {
		return // no lost signal: Unlock reports the loss, checked elsewhere
	}
	const lease = 9 * time.Second
	name := redistest.Unique(t)
	m := e.lock(name, lockkit.WithLease(lease))
	redistest.MustLock(t, m)
	deleteKeys(t, e.rc, name)
	lostWithin(t, m, lease/2) // the lease ends at 9 s: reported at 3
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrLost)
	eventuallyTaken(t, e, name)
}

// testPartialUnlockHeldUp checks that an Unlock that leaves acquires of
// the holder (a re-entered hold) keeps the hold the caller's while its
// reply is held up: the hold is still renewed, so that no other owner
// takes the lock meanwhile, over several leases; and once the reply comes
// the hold goes on, one acquire fewer.
func testPartialUnlockHeldUp(t *testing.T, e *env) {
	if _, ok := e.lock("x").(counter); !ok {
		return // re-entries counted in the value (RedLock): nothing sent
	}
	if _, ok := redistest.MiniFor(e.rc); ok {
		// miniredis keys do not expire by the clock, and the cases that
		// run beside this one fast-forward the server's time.
		return
	}
	const lease = 300 * time.Millisecond
	name := redistest.Unique(t)
	held := &redistest.Silence{Match: redistest.IsScript, Max: 2 * waitTimeout}
	defer held.Off()
	a := e.k.New(redistest.Lockkit(t, e.newRC(t, held)), name, lockkit.WithWatchdogTimeout(lease))
	redistest.MustLock(t, a)
	redistest.MustLock(t, a)
	held.On()
	done := make(chan error, 1)
	go func() { done <- a.Unlock(ctx(t)) }()
	redistest.Eventually(t, waitTimeout, "the Unlock's release to be held up, or the Unlock to return", func() bool {
		return held.Held() > 0 || len(done) == 1
	})
	if held.Held() == 0 {
		// Re-entries counted in memory (cohort mode): the partial Unlock
		// sent nothing.
		held.Off()
		if err := <-done; err != nil {
			t.Fatalf("partial Unlock = %v", err)
		}
		redistest.MustUnlock(t, a)
		return
	}
	// Renewals go on (they are pipelined, which the hook lets through):
	// for 4 leases, no other owner gets the lock, and a is not told of a
	// loss.
	other := e.lock(name)
	tick := time.NewTicker(lease / 10)
	defer tick.Stop()
	for end := time.Now().Add(4 * lease); time.Now().Before(end); <-tick.C {
		if ok, err := other.TryLock(ctx(t)); ok || err != nil {
			t.Fatalf("TryLock by another owner while a holds, its partial Unlock held up = %v, %v; want false", ok, err)
		}
		wantNotLost(t, a, "a was told of a loss while it holds")
	}
	held.Off()
	if err := redistest.Receive(t, done, waitTimeout, "the partial Unlock"); err != nil {
		t.Fatalf("partial Unlock = %v", err)
	}
	wantHoldCount(t, a, 1)
	redistest.MustUnlock(t, a)
	eventuallyTaken(t, e, name)
}

func testUnlockRetry(t *testing.T, e *env) {
	if _, ok := e.lock("x").(tokener); !ok {
		return // a composition: its members' Unlocks are retry-safe
	}
	name := redistest.Unique(t)
	drop := &redistest.DropReply{Match: redistest.IsScript}
	m := e.k.New(redistest.Lockkit(t, e.newRC(t, drop)), name)
	redistest.MustLock(t, m)
	redistest.MustLock(t, m)
	drop.Arm()
	err := m.Unlock(ctx(t))
	switch {
	case drop.Armed() && err != nil:
		t.Fatalf("Unlock that sent nothing = %v", err)
	case drop.Armed():
		// The lock counts re-entries in the value (RedLock): the Unlock
		// of an inner hold sends nothing, so there is nothing to retry.
	case err == nil:
		t.Fatal("Unlock whose reply was dropped returned nil")
	default:
		// The retry settles the first Unlock: one hold is left, not none.
		redistest.MustUnlock(t, m)
		wantHoldCount(t, m, 1)
		if ok, err := e.lock(name).TryLock(ctx(t)); ok || err != nil {
			t.Fatalf("TryLock by another owner after one of two Unlocks = %v, %v; want false", ok, err)
		}
	}
	// The same again for the last hold: the retry reports success, not a
	// loss, and frees the lock.
	drop.Arm()
	if err := m.Unlock(ctx(t)); err == nil {
		t.Fatal("Unlock whose reply was dropped returned nil")
	}
	if drop.Armed() {
		t.Fatal("the last release never reached the server")
	}
	if err := m.Unlock(ctx(t)); err != nil {
		t.Fatalf("retried last Unlock = %v, want nil", err)
	}
	wantNotLost(t, m, "a retried Unlock closed the lost signal")
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
	eventuallyTaken(t, e, name)
}

func testLostAcquire(t *testing.T, e *env) {
	name := redistest.Unique(t)
	drop := &redistest.DropReply{Match: redistest.IsScript}
	m := e.k.New(redistest.Lockkit(t, e.newRC(t, drop)), name)
	drop.Arm()
	if ok, err := m.TryLock(ctx(t)); ok || err == nil {
		t.Fatalf("TryLock whose reply was dropped = %v, %v; want an error", ok, err)
	}
	// The acquire ran, but its hold was undone: another owner gets the
	// lock at once, without waiting for a lease.
	if ok, err := e.lock(name).TryLock(ctx(t)); !ok || err != nil {
		t.Fatalf("TryLock by another owner = %v, %v; want true (stray hold left)", ok, err)
	}
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
}

func testForce(t *testing.T, e *env) {
	if _, ok := e.lock("x").(forcer); !ok {
		return
	}
	name, a, b := e.contended(t)
	redistest.MustLock(t, a)
	got := make(chan error, 1)
	go func() { got <- b.Lock(redistest.Ctx(t, waitTimeout)) }()
	ok, err := e.lock(name).(forcer).ForceUnlock(ctx(t))
	if !ok || err != nil {
		t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
	}
	if err := redistest.Receive(t, got, waitTimeout, "the waiter's Lock"); err != nil {
		t.Fatalf("waiter after ForceUnlock: %v", err)
	}
	redistest.WantErr(t, a.Unlock(ctx(t)), lockkit.ErrLost)
	redistest.MustUnlock(t, b)
	if ok, err := b.(forcer).ForceUnlock(ctx(t)); ok || err != nil {
		t.Fatalf("ForceUnlock of a free lock = %v, %v; want false", ok, err)
	}
}

func testWithOwner(t *testing.T, e *env) {
	name := redistest.Unique(t)
	id := "job-" + redistest.Unique(t)
	a := e.lock(name, lockkit.WithOwner(id))
	b := e.k.New(redistest.Lockkit(t, e.newRC(t)), name, lockkit.WithOwner(id))
	redistest.MustLock(t, a)
	if ok, err := b.TryLock(ctx(t)); !ok || err != nil {
		t.Fatalf("TryLock by a value with the same owner = %v, %v; want re-entry", ok, err)
	}
	wantHoldCount(t, b, 2)
	if token(b) != token(a) {
		t.Fatalf("shared hold has tokens %d and %d", token(a), token(b))
	}
	redistest.MustUnlock(t, b)
	if ok, err := e.lock(name).TryLock(ctx(t)); ok || err != nil {
		t.Fatalf("TryLock by another owner while the shared hold lasts = %v, %v; want false", ok, err)
	}
	// A value of the same owner that never locked (another process of the
	// job, say) may release the owner's hold too.
	c := e.k.New(redistest.Lockkit(t, e.newRC(t)), name, lockkit.WithOwner(id))
	wantHoldCount(t, c, 1)
	redistest.MustUnlock(t, c)
	redistest.WantErr(t, c.Unlock(ctx(t)), lockkit.ErrNotHeld)
	eventuallyTaken(t, e, name)
	// a learns that its hold ended when it unlocks: the token it held was
	// released by its owner, so it is no loss.
	if err := a.Unlock(ctx(t)); err != nil {
		t.Fatalf("Unlock of a hold its owner released through another value = %v, want nil", err)
	}
}

// testWithOwnerLostAcquire checks that a Lock that fails under a shared
// owner id leaves nothing held: its acquire, which ran but whose reply was
// lost, is undone by its attempt id, while another value's hold of the
// same owner is kept.
func testWithOwnerLostAcquire(t *testing.T, e *env) {
	name := redistest.Unique(t)
	id := "job-" + redistest.Unique(t)
	drop := &redistest.DropReply{Match: redistest.IsScript}
	m := e.k.New(redistest.Lockkit(t, e.newRC(t, drop)), name, lockkit.WithOwner(id))
	drop.Arm()
	if ok, err := m.TryLock(ctx(t)); ok || err == nil {
		t.Fatalf("TryLock whose reply was dropped = %v, %v; want an error", ok, err)
	}
	// The acquire ran and is undone in the background: another owner
	// gets the lock without waiting for a lease.
	eventuallyTaken(t, e, name)

	// A re-entry of another value's hold is undone alone. (A client of its
	// own: the undo above may still be on its way back through m's hook.)
	a := e.lock(name, lockkit.WithOwner(id))
	redistest.MustLock(t, a)
	drop = &redistest.DropReply{Match: redistest.IsScript}
	m = e.k.New(redistest.Lockkit(t, e.newRC(t, drop)), name, lockkit.WithOwner(id))
	drop.Arm()
	if ok, err := m.TryLock(ctx(t)); ok || err == nil {
		t.Fatalf("TryLock whose reply was dropped = %v, %v; want an error", ok, err)
	}
	if hc, ok := a.(counter); ok {
		redistest.Eventually(t, waitTimeout, "the re-entry to be undone", func() bool {
			n, err := hc.HoldCount(ctx(t))
			return n == 1 && err == nil
		})
	}
	// Otherwise a stray count would keep the lock after a's Unlock.
	redistest.MustUnlock(t, a)
	eventuallyTaken(t, e, name)
}

// testWithOwnerLateUndo checks that the undo of an acquire in doubt under
// a shared owner id undoes it even when another value of the owner
// re-entered the hold after it: that acquire is no longer the hold's
// last, and an undo that looked only at the last one would leave it
// counted, keeping the lock held for a whole lease after every value's
// Unlock.
func testWithOwnerLateUndo(t *testing.T, e *env) {
	name := redistest.Unique(t)
	id := "job-" + redistest.Unique(t)
	a := e.lock(name, lockkit.WithOwner(id))
	redistest.MustLock(t, a)

	// m's acquire runs and its reply is held up; b re-enters meanwhile,
	// and then m gives up: it undoes its acquire when the reply comes.
	var first atomic.Bool
	late := &redistest.Silence{Late: true, Max: 2 * waitTimeout, Match: func(cmd redis.Cmder) bool {
		return redistest.IsScript(cmd) && first.CompareAndSwap(false, true)
	}}
	defer late.Off()
	m := e.k.New(redistest.Lockkit(t, e.newRC(t, late)), name, lockkit.WithOwner(id))
	late.On()
	c, cancel := context.WithCancel(ctx(t))
	defer cancel()
	done := make(chan error, 1)
	go func() {
		ok, err := m.TryLock(c)
		if ok {
			err = errors.New("the TryLock took the lock")
		}
		done <- err
	}()
	redistest.Eventually(t, waitTimeout, "m's acquire to run", func() bool { return late.Held() == 1 })
	b := e.lock(name, lockkit.WithOwner(id))
	if ok, err := b.TryLock(ctx(t)); !ok || err != nil {
		t.Fatalf("TryLock by a value of the owner = %v, %v; want re-entry", ok, err)
	}
	cancel()
	redistest.WantErr(t, redistest.Receive(t, done, waitTimeout, "m's TryLock to give up"), context.Canceled)
	late.Off() // the reply comes, and m undoes its acquire
	if hc, ok := a.(counter); ok {
		redistest.Eventually(t, waitTimeout, "m's acquire to be undone", func() bool {
			n, err := hc.HoldCount(ctx(t))
			return n == 2 && err == nil
		})
	}
	redistest.MustUnlock(t, b)
	redistest.MustUnlock(t, a)
	eventuallyTaken(t, e, name)
}

// testWithOwnerUnlockRetry checks that an Unlock whose reply was lost,
// by a value whose owner id another value shares, releases once when it
// is called again, or when the lock settles it in the background (a last
// Unlock never called again), also after the other value unlocked in
// between: the hold lists the ids of its latest partial unlocks, not the
// last one alone, which the other value's Unlock would replace.
func testWithOwnerUnlockRetry(t *testing.T, e *env) {
	if _, ok := e.lock("x").(tokener); !ok {
		return // a composition: its members' Unlocks are retry-safe
	}
	for _, retried := range []bool{true, false} {
		name := redistest.Unique(t)
		id := lockkit.WithOwner("job-" + name)
		drop := &redistest.DropReply{Match: redistest.IsScript}
		// Once on, a's scripts after the first (the retry in the
		// background) wait until b has unlocked.
		var scripts atomic.Int64
		held := &redistest.Silence{Match: func(cmd redis.Cmder) bool {
			return redistest.IsScript(cmd) && scripts.Add(1) > 1
		}}
		answered := &scriptReplies{}
		a := e.k.New(redistest.Lockkit(t, e.newRC(t, drop, held, answered)), name, id)
		b := e.lock(name, id)
		redistest.MustLock(t, a)
		redistest.MustUnlock(t, a) // the scripts loaded: one EVALSHA each
		redistest.MustLock(t, a)
		if retried {
			redistest.MustLock(t, a)
		}
		redistest.MustLock(t, b)
		redistest.MustLock(t, b)
		drop.Arm()
		if !retried {
			held.On()
		}
		before := answered.n.Load()
		err := a.Unlock(ctx(t))
		if drop.Armed() {
			// The lock counts re-entries in the value (RedLock): the
			// Unlock of an inner hold sends nothing.
			held.Off()
			return
		}
		if err == nil {
			t.Fatal("Unlock whose reply was dropped returned nil")
		}
		if !retried {
			redistest.Eventually(t, waitTimeout, "the lock's own retry of a's last Unlock", func() bool { return held.Held() == 1 })
		}
		redistest.MustUnlock(t, b)
		if retried {
			redistest.MustUnlock(t, a) // the retry: released already
			redistest.MustUnlock(t, a)
		} else {
			held.Off()
			redistest.Eventually(t, waitTimeout, "the retry's reply", func() bool { return answered.n.Load() >= before+2 })
		}
		// b holds once still.
		if ok, err := e.lock(name).TryLock(ctx(t)); ok || err != nil {
			t.Fatalf("TryLock by another owner while b holds = %v, %v; want false (a's Unlock called again: %v)", ok, err, retried)
		}
		wantNotLost(t, b, "b's hold was reported lost")
		redistest.MustUnlock(t, b)
		eventuallyTaken(t, e, name)
	}
}

// scriptReplies is a go-redis hook that counts the scripts whose reply
// (or error) came back.
type scriptReplies struct{ n atomic.Int64 }

func (h *scriptReplies) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *scriptReplies) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if redistest.IsScript(cmd) {
			h.n.Add(1)
		}
		return err
	}
}

func (h *scriptReplies) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func testCancelledUnlock(t *testing.T, e *env) {
	name := redistest.Unique(t)
	m := e.lock(name)
	redistest.MustLock(t, m)
	c, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.Unlock(c); err != nil {
		t.Fatalf("Unlock with a cancelled ctx = %v, want nil", err)
	}
	if ok, err := e.lock(name).TryLock(ctx(t)); !ok || err != nil {
		t.Fatalf("TryLock after Unlock with a cancelled ctx = %v, %v; want true", ok, err)
	}
}

// testClosed checks what a Client's Close does to its locks: a hold (here
// entered twice) is reported lost, a waiting Lock returns ErrClosed, and so
// does every later call; Unlock still frees what was held, and an Unlock
// that then finds nothing held says ErrClosed too, not ErrNotHeld.
func testClosed(t *testing.T, e *env) {
	name := redistest.Unique(t)
	lc := redistest.Lockkit(t, e.newRC(t))
	m, w := e.k.New(lc, name), e.k.New(lc, name)
	redistest.MustLock(t, m)
	redistest.MustLock(t, m)
	got := make(chan error, 1)
	go func() { got <- w.Lock(redistest.Ctx(t, waitTimeout)) }()
	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := lc.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	lostWithin(t, m, waitTimeout)
	redistest.WantErr(t, redistest.Receive(t, got, waitTimeout, "the waiter's Lock"), lockkit.ErrClosed)
	redistest.WantErr(t, m.Lock(ctx(t)), lockkit.ErrClosed)
	if _, err := m.TryLock(ctx(t)); !errors.Is(err, lockkit.ErrClosed) {
		t.Fatalf("TryLock after Close = %v, want ErrClosed", err)
	}
	redistest.WantErr(t, e.k.New(lc, name).Lock(ctx(t)), lockkit.ErrClosed)
	// Unlock still frees what was held, and reports the loss.
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrClosed)
	eventuallyTaken(t, e, name)
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrClosed)
	redistest.WantErr(t, e.k.New(lc, name).Unlock(ctx(t)), lockkit.ErrClosed)
}

// testUnlockRetryAfterLock checks that a retried Unlock settles the Unlock
// whose reply was lost, even when the owner locked again in between: it
// never releases the newer hold.
func testUnlockRetryAfterLock(t *testing.T, e *env) {
	if _, ok := e.lock("x").(tokener); !ok {
		return
	}
	for _, holds := range []int{1, 2} {
		name := redistest.Unique(t)
		drop := &redistest.DropReply{Match: redistest.IsScript}
		m := e.k.New(redistest.Lockkit(t, e.newRC(t, drop)), name)
		for range holds {
			redistest.MustLock(t, m)
		}
		drop.Arm()
		err := m.Unlock(ctx(t))
		switch {
		case drop.Armed() && err == nil && holds > 1:
			// The lock counts re-entries in the value (RedLock): the Unlock
			// of an inner hold sent nothing, so nothing is in doubt.
			continue
		case err == nil || drop.Armed():
			t.Fatalf("holds=%d: Unlock whose reply was dropped = %v (sent: %v)", holds, err, !drop.Armed())
		}
		redistest.MustLock(t, m)
		// This Unlock settles the one that failed: m still holds as many
		// times as it locked since, minus none.
		redistest.MustUnlock(t, m)
		if ok, err := e.lock(name).TryLock(ctx(t)); ok || err != nil {
			t.Fatalf("holds=%d: TryLock by another owner while m still holds = %v, %v; want false", holds, ok, err)
		}
		wantNotLost(t, m, fmt.Sprintf("holds=%d: the lost signal closed though m holds the lock", holds))
		for range holds {
			redistest.MustUnlock(t, m)
		}
		redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
		eventuallyTaken(t, e, name)
	}
}

// testUnlockRetryAfterRenewal checks that a renewal running between an
// Unlock whose reply was lost and its retry reports no loss: the hold is
// gone because the Unlock did take effect.
func testUnlockRetryAfterRenewal(t *testing.T, e *env) {
	if _, ok := e.lock("x").(tokener); !ok {
		return
	}
	name := redistest.Unique(t)
	drop := &redistest.DropReply{Match: redistest.IsScript}
	lc := redistest.Lockkit(t, e.newRC(t, drop))
	m := e.k.New(lc, name, lockkit.WithWatchdogTimeout(150*time.Millisecond))
	redistest.MustLock(t, m)
	drop.Arm()
	if err := m.Unlock(ctx(t)); err == nil || drop.Armed() {
		t.Fatalf("Unlock whose reply was dropped = %v (sent: %v)", err, !drop.Armed())
	}
	// Renewals run every 50 ms and find the hold gone; the watchdog then
	// drops it.
	redistest.Eventually(t, waitTimeout, "a renewal to find the released hold gone", func() bool {
		return lc.Watchdog().Len() == 0
	})
	wantNotLost(t, m, "the lost signal closed for a hold the owner released")
	if err := m.Unlock(ctx(t)); err != nil {
		t.Fatalf("retried Unlock = %v, want nil", err)
	}
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
}

// testForceResent checks that a ForceUnlock the client sent twice (a
// re-send after a lost reply) reports the hold its first run removed,
// not the free lock its second run found.
func testForceResent(t *testing.T, e *env) {
	if _, ok := e.lock("x").(forcer); !ok {
		return
	}
	name := redistest.Unique(t)
	holder := e.lock(name)
	redistest.MustLock(t, holder)
	h := &redistest.ResendScript{}
	f := e.k.New(redistest.Lockkit(t, e.newRC(t, h)), name).(forcer)
	h.Arm()
	if ok, err := f.ForceUnlock(ctx(t)); !ok || err != nil {
		t.Fatalf("ForceUnlock sent twice = %v, %v; want true", ok, err)
	}
	if h.Armed() {
		t.Fatal("the ForceUnlock was not sent")
	}
	redistest.WantErr(t, holder.Unlock(ctx(t)), lockkit.ErrLost)
	if ok, err := f.ForceUnlock(ctx(t)); ok || err != nil {
		t.Fatalf("ForceUnlock of a free lock = %v, %v; want false", ok, err)
	}
}

// testAcquireResent checks that an acquire the client sent twice takes the
// lock once: after Lock and Unlock, the lock is free at once.
func testAcquireResent(t *testing.T, e *env) {
	name := redistest.Unique(t)
	h := &redistest.ResendScript{}
	m := e.k.New(redistest.Lockkit(t, e.newRC(t, h)), name)
	h.Arm()
	redistest.MustLock(t, m)
	if h.Armed() {
		t.Fatal("the acquire was not sent")
	}
	redistest.MustUnlock(t, m)
	if ok, err := e.lock(name).TryLock(ctx(t)); !ok || err != nil {
		t.Fatalf("TryLock after Lock and Unlock = %v, %v; want true (the re-sent acquire counted twice)", ok, err)
	}
}
