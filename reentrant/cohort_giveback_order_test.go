package reentrant_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_a_lost_hold_owed_to_Redis_is_given_back_before_the_next_is_taken:
// a hold lost during a network cut whose holder's Unlock returns the loss
// while the cut lasts (its ctx ends), with no other Mutex of the process
// about: the process still owes Redis the lost hold's release, and asks
// again in the background. Its cohort stays the process's meanwhile, so
// that a Lock that comes waits in it: once the cut heals, the lost hold
// is given back (Released, with the loss) before the Lock takes the next
// (Acquired), and then the Client keeps no cohort.
func TestLocalHandoff_a_lost_hold_owed_to_Redis_is_given_back_before_the_next_is_taken(t *testing.T) {
	srv := redistest.StartServer(t)
	px := redistest.StartProxy(t, srv.Addr())
	lc := redistest.Lockkit(t, px.Client(t))
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	var (
		mu     sync.Mutex
		events []string
	)
	note := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
	trace := &lockkit.Trace{
		Acquired: func(lockkit.AcquiredInfo) { note("acquired") },
		Released: func(i lockkit.ReleasedInfo) {
			if errors.Is(i.Err, lockkit.ErrLost) {
				note("released lost")
			}
		},
	}
	cohorts := func() int {
		n := 0
		lc.Locals(func(m map[any]any) { n = len(m) })
		return n
	}
	opts := []lockkit.Option{handoff, lockkit.WithWatchdogTimeout(time.Second), lockkit.WithTrace(trace)}
	a, b := reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...)
	redistest.MustLock(t, a)
	px.Cut()
	redistest.Receive(t, a.Lost(), redistest.Hang, "a's lost signal")
	uctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	redistest.WantErr(t, a.Unlock(uctx), lockkit.ErrLost)
	cancel()
	if n := cohorts(); n != 1 {
		t.Fatalf("the Client keeps %d cohorts while the lost hold is owed to Redis, want 1", n)
	}
	got := redistest.LockAsync(ctx, b)
	px.Heal()
	if err := redistest.Receive(t, got, redistest.Hang, "b's Lock"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, b)
	mu.Lock()
	order := append([]string(nil), events...)
	mu.Unlock()
	if len(order) != 3 || order[1] != "released lost" {
		t.Fatalf("events %q, want a's hold acquired, given back with its loss, and then b's acquired", order)
	}
	redistest.Eventually(t, redistest.Hang, "the Client to keep no cohort", func() bool { return cohorts() == 0 })
	redistest.AssertCleanWithin(t, srv.Client(t), name, 10*time.Second)
}
