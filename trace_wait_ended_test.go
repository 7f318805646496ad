package lockkit_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestTrace_a_wait_its_ctx_ends_reports_WaitDone_with_Locks_error_and_no_hold
// checks, for every kind, that a Lock whose ctx ends while it waits
// reports WaitStart, then WaitDone with the error Lock returned and how
// long it waited, and nothing else: no Acquired, no Released, then or
// later. The next Lock, once the lock is free, reports a hold that did
// not wait, with the lock's kind, name, owner and side on every event:
// one owner id for all four, or, in cohort mode, one for the wait and one
// for the hold (the cohort that waited in Redis was dropped when the
// Lock gave up, and the next Lock made a new one).
func TestTrace_a_wait_its_ctx_ends_reports_WaitDone_with_Locks_error_and_no_hold(t *testing.T) {
	eachTraceKind(t, func(t *testing.T, k traceKind) {
		_, lc, name := redistest.OnServer(t)
		blocker := k.block(lc, name)
		redistest.MustLock(t, blocker)
		var log traceLog
		m := k.new(lc, name, lockkit.WithTrace(log.trace()))
		err := m.Lock(redistest.Ctx(t, 300*time.Millisecond))
		redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
		redistest.MustUnlock(t, blocker)
		redistest.MustLock(t, m)
		redistest.MustUnlock(t, m)

		if got, want := log.hooks(), []string{"WaitStart", "WaitDone", "Acquired", "Released"}; !slices.Equal(got, want) {
			t.Fatalf("events %v; want %v", got, want)
		}
		ev := log.all()
		for i, e := range ev {
			want := lockkit.LockInfo{Kind: k.kind, Name: name, Owner: ev[owner(k, i)].lock.Owner, Read: k.read}
			if e.lock != want || e.lock.Owner == "" {
				t.Errorf("%s of %+v; want %+v", e.hook, e.lock, want)
			}
		}
		if done := ev[1]; done.err == nil || done.err.Error() != err.Error() || !errors.Is(done.err, context.DeadlineExceeded) || done.held <= 0 {
			t.Errorf("WaitDone: Err %v, Waited %v; want Lock's error %q and a positive wait", done.err, done.held, err)
		}
		if a := ev[2]; a.contended || a.reentry || a.token == 0 {
			t.Errorf("Acquired after the lock was freed = %+v; want a fresh, uncontended hold with a token", a)
		}
		if r := ev[3]; !r.ended || r.err != nil || r.token != ev[2].token {
			t.Errorf("Released = %+v; want the end of the hold with token %d", r, ev[2].token)
		}
	})
}

// owner returns the index of the event whose owner id the i-th event of
// a wait that gave up and a hold after it (WaitStart, WaitDone, Acquired,
// Released) carries: the first's, or in cohort mode the first of its
// pair's.
func owner(k traceKind, i int) int {
	if k.cohort {
		return i / 2 * 2
	}
	return 0
}
