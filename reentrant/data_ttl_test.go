package reentrant_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestData_in_Redis_lives_as_long_as_the_README_says reads the TTLs that
// the README's "Data in Redis" table gives the keys beside a reentrant
// lock: the processes waiting, PREFIX:{NAME}:procs, live the blocker's
// lease + 2 s (30 s + 2 s right after the blocker took the lock), and a
// released token, PREFIX:{NAME}:released:TOKEN, 10 s after its hold's
// Unlock.
func TestData_in_Redis_lives_as_long_as_the_README_says(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	name := redistest.Unique(t)
	base := "lockkit:{" + name + "}"
	holder := reentrant.New(redistest.Lockkit(t, srv.Client(t)), name)
	wc := redistest.Lockkit(t, srv.Client(t))
	waiter := reentrant.New(wc, name)
	const slack = time.Second

	redistest.MustLock(t, holder)
	got := redistest.LockAsync(ctx, waiter)
	waitAsleep(t, wc, name, 1)
	const procsTTL = lockkit.DefaultWatchdogTimeout + 2*time.Second
	if ttl, err := rc.PTTL(ctx, base+":procs").Result(); err != nil || ttl <= procsTTL-slack || ttl > procsTTL {
		t.Errorf("PTTL %s:procs = %v, %v; want the blocker's lease + 2 s, %v", base, ttl, err, procsTTL)
	}

	released := base + ":released:" + strconv.FormatInt(holder.Token(), 10)
	redistest.MustUnlock(t, holder)
	if ttl, err := rc.PTTL(ctx, released).Result(); err != nil || ttl <= 10*time.Second-slack || ttl > 10*time.Second {
		t.Errorf("PTTL %s = %v, %v; want 10 s", released, ttl, err)
	}
	if err := redistest.Receive(t, got, redistest.Hang, "the waiter to get the lock"); err != nil {
		t.Fatalf("the waiter's Lock = %v", err)
	}
	redistest.MustUnlock(t, waiter)
}
