package rwlock_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// On miniredis the scripts' clock (TIME) is set by the test, so lease
// deadlines are exact. The watchdog renews every 10 s of real time, which
// these tests never reach.

func TestRLock_crashed_reader_never_pins_or_extends_others(t *testing.T) {
	mr, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	t0 := time.Now()
	mr.SetTime(t0)
	crashed, live, w := rwlock.New(c, name), rwlock.New(c, name), rwlock.New(c, name)
	mustRLock(t, crashed) // lease until t0+30s; it will never renew or unlock
	mr.SetTime(t0.Add(20 * time.Second))
	mustRLock(t, live) // lease until t0+50s
	if s := state(t, w); s.Readers != 2 || s.TTL != 30*time.Second {
		t.Fatalf("state = %+v; want 2 readers, TTL 30s (the longest live hold)", s)
	}

	mr.SetTime(t0.Add(31 * time.Second)) // the crashed reader's lease has ended
	if s := state(t, w); s.Mode != rwlock.ReadLocked || s.Readers != 1 || s.TTL != 19*time.Second {
		t.Fatalf("state = %+v; want 1 reader, TTL 19s (the live reader's own lease)", s)
	}
	if tryLock(t, w) {
		t.Fatal("writer got the lock while the live reader holds it")
	}
	mustRUnlock(t, live)
	wantState(t, w, rwlock.Unlocked, 0, 0, 0)
	if !tryLock(t, w) {
		t.Fatal("the crashed reader's expired hold still pins the lock")
	}
	redistest.MustUnlock(t, w)
	if err := crashed.RUnlock(redistest.Ctx(t, waitTimeout)); !errors.Is(err, lockkit.ErrLost) {
		t.Fatalf("RUnlock of the expired hold = %v, want ErrLost", err)
	}
	for _, k := range []string{"", ":leases", ":writers"} {
		if mr.Exists(lockKey(name) + k) {
			t.Fatalf("key %s%s left behind by a freed lock", lockKey(name), k)
		}
	}
}

func TestTTL_follows_longest_live_hold(t *testing.T) {
	mr, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	mr.SetTime(time.Now())
	short := rwlock.New(c, name, lockkit.WithLease(10*time.Second))
	long := rwlock.New(c, name, lockkit.WithLease(time.Minute))
	mustRLock(t, short)
	if d := state(t, short).TTL; d != 10*time.Second {
		t.Fatalf("TTL = %v, want 10s", d)
	}
	mustRLock(t, long)
	if d := state(t, short).TTL; d != time.Minute {
		t.Fatalf("TTL = %v, want 1m (the longer hold)", d)
	}
	if d := mr.TTL(lockKey(name)); d != time.Minute {
		t.Fatalf("the lock key expires in %v, want 1m", d)
	}
	mustRUnlock(t, long)
	if d := state(t, short).TTL; d != 10*time.Second {
		t.Fatalf("TTL after the longer hold ended = %v, want 10s", d)
	}
	if d := mr.TTL(lockKey(name)); d != 10*time.Second {
		t.Fatalf("the lock key expires in %v, want 10s", d)
	}
	mustRUnlock(t, short)
}

func TestRLock_each_reader_has_own_lease_on_redis(t *testing.T) {
	c := redistest.Lockkit(t, redistest.StartServer(t).Client(t))
	name := redistest.Unique(t)
	// stale never renews (a fixed lease, as if it had crashed); live is
	// renewed by the watchdog every 200 ms.
	stale := rwlock.New(c, name, lockkit.WithLease(500*time.Millisecond))
	live := rwlock.New(c, name, lockkit.WithWatchdogTimeout(600*time.Millisecond))
	w := rwlock.New(c, name)
	mustRLock(t, stale)
	mustRLock(t, live)
	redistest.Receive(t, stale.RLost(), waitTimeout, "the fixed read lease to end")
	redistest.Eventually(t, waitTimeout, "the stale reader's hold to end", func() bool {
		return state(t, w).Readers == 1
	})
	// live keeps reading past the stale lease, on its own renewed lease.
	for range 3 {
		s := state(t, live)
		if s.RHoldCount != 1 || s.TTL > 600*time.Millisecond {
			t.Fatalf("state = %+v; want live still reading, TTL within its own 600ms lease", s)
		}
		select {
		case <-live.RLost():
			t.Fatal("the renewed reader lost its hold")
		case <-time.After(300 * time.Millisecond): // let renewals happen
		}
	}
	if tryLock(t, w) {
		t.Fatal("writer got the lock while the live reader holds it")
	}
	mustRUnlock(t, live)
	if !tryLock(t, w) {
		t.Fatal("the stale reader's ended hold still pins the lock")
	}
	redistest.MustUnlock(t, w)
	if err := stale.RUnlock(redistest.Ctx(t, waitTimeout)); !errors.Is(err, lockkit.ErrLost) {
		t.Fatalf("RUnlock of the ended hold = %v, want ErrLost", err)
	}
}

func TestLock_waits_out_a_vanished_reader_lease(t *testing.T) {
	c := redistest.Lockkit(t, redistest.StartServer(t).Client(t))
	name := redistest.Unique(t)
	const lease = 2 * time.Second
	stale := rwlock.New(c, name, lockkit.WithLease(lease))
	w := rwlock.New(c, name)
	mustRLock(t, stale)
	// Nobody releases: the writer must get the lock when the lease ends, by
	// bounding its wait with the lock's TTL. Else nothing would wake it
	// before its intent's 10 s heartbeat.
	done := async(t, func() error { return w.Lock(redistest.Ctx(t, time.Minute)) })
	redistest.Eventually(t, waitTimeout, "the writer to wait", func() bool { return state(t, w).WaitingWriters == 1 })
	if s := state(t, w); s.Readers != 1 {
		t.Fatalf("state while the writer waits = %+v; want the stale reader's hold", s)
	}
	pending(t, done, "Lock while the stale reader's hold lasts")
	if err := redistest.Receive(t, done, lease+5*time.Second, "Lock once the reader's lease ended"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, w)
	if err := stale.RUnlock(redistest.Ctx(t, waitTimeout)); !errors.Is(err, lockkit.ErrLost) {
		t.Fatalf("RUnlock of the ended hold = %v, want ErrLost", err)
	}
}

// readerChild takes the read lock args[1] with a watchdog timeout of
// args[2], prints "held", and waits to be killed.
func readerChild(args []string) {
	timeout, _ := time.ParseDuration(args[2])
	m := rwlock.New(lockkit.New(redistest.SpecClient(args[0])), args[1], lockkit.WithWatchdogTimeout(timeout))
	if err := m.RLock(context.Background()); err != nil {
		redistest.ChildFatalf("RLock: %v", err)
	}
	redistest.ChildPrintf("held %d", m.RToken())
	for range redistest.ChildLines() {
	}
	select {} // stdin closed: still hold until killed
}

func TestLock_after_reader_process_killed_within_lease(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	const lease = time.Second
	reader := redistest.StartChild(t, "rw-reader", redistest.ClientSpec(rc), name, lease.String())
	reader.WaitLine(t, "held", childTimeout)

	w := rwlock.New(c, name)
	done := async(t, func() error { return w.Lock(redistest.Ctx(t, time.Minute)) })
	redistest.Eventually(t, waitTimeout, "the writer to wait", func() bool { return state(t, w).WaitingWriters == 1 })
	// The reader's watchdog keeps its 1 s lease alive: let it renew a few
	// times before it dies, so the writer waits on a renewed hold.
	renewals := 0
	last := time.Duration(0)
	redistest.Eventually(t, waitTimeout, "the reader's lease to be renewed", func() bool {
		ttl := state(t, w).TTL
		if ttl > last {
			renewals++
		}
		last = ttl
		return renewals >= 3
	})
	pending(t, done, "Lock while the reader process holds the lock")
	reader.Kill(t)
	// The renewed lease is the writer's bound: else nothing would wake it
	// before its intent's 10 s heartbeat.
	if err := redistest.Receive(t, done, lease+5*time.Second, "Lock after the reader was killed"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, w)
}

// A writer waits for the first lease that can end, not the last: while a
// reader with a short lease and one with a long lease hold the lock, the
// short one is what the writer must watch, because when its process dies
// and the other reader leaves, nobody is left to wake the writer. With
// writer preference the writer would otherwise sleep until its 10 s intent
// heartbeat, without it until the other reader's 30 s lease.
func TestLock_after_reader_process_killed_while_another_reader_left(t *testing.T) {
	for _, prefer := range []bool{true, false} {
		t.Run(fmt.Sprintf("preference=%v", prefer), func(t *testing.T) {
			t.Parallel()
			rc := redistest.StartServer(t).Client(t)
			c := redistest.Lockkit(t, rc, rwlock.WithWriterPreference(prefer))
			name := redistest.Unique(t)
			const lease = time.Second
			reader := redistest.StartChild(t, "rw-reader", redistest.ClientSpec(rc), name, lease.String())
			reader.WaitLine(t, "held", childTimeout)
			other := rwlock.New(c, name) // the default 30 s lease
			mustRLock(t, other)

			w := rwlock.New(c, name)
			done := async(t, func() error { return w.Lock(redistest.Ctx(t, time.Minute)) })
			// Asleep, with the wait its last try returned while both
			// readers held the lock.
			redistest.Eventually(t, waitTimeout, "the writer to sleep", func() bool {
				return c.Notifier().Sleeping(writersChannel(c, name)) == 1
			})
			reader.Kill(t)
			// The other reader leaves while the killed one's hold still
			// lingers: the lock is not free yet, so this release wakes no
			// writer.
			mustRUnlock(t, other)
			// Bounded well below the 10 s heartbeat and the 30 s lease.
			if err := redistest.Receive(t, done, lease+5*time.Second, "Lock after the reader was killed"); err != nil {
				t.Fatal(err)
			}
			redistest.MustUnlock(t, w)
		})
	}
}
