package main

import (
	"slices"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestShow_fair_lock_taken_from_its_queue_has_no_anomalies: a fair lock's
// waiter that takes the lock from the head of the queue keeps its entry's
// deadline in the hash (':q:' + owner, for the undo of its acquire); show
// decodes that field as the hold's, not as an unknown one.
func TestShow_fair_lock_taken_from_its_queue_has_no_anomalies(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		first := fair.New(f.lc, f.name, lockkit.WithOwner("first"))
		redistest.MustLock(t, first)
		next := fair.New(f.lc, f.name, lockkit.WithOwner("next"))
		got := waitingInBackground(t, "the waiter to queue", next.Lock, func() bool {
			return zcard(t, f.rc, keys(f.prefix, f.name).Sub("waiters")) == 1
		})
		redistest.MustUnlock(t, first)
		if err := redistest.Receive(t, got, 10*time.Second, "the waiter's Lock"); err != nil {
			t.Fatalf("the waiter's Lock: %v", err)
		}
		var l Lock
		f.okJSON(t, &l, "show", "--prefix", f.prefix, f.name)
		if got, want := holderLines(l.Holders), []string{"next exclusive 1 " + itoa(next.Token())}; !slices.Equal(got, want) {
			t.Errorf("holders %q, want %q", got, want)
		}
		wantNoAnomalies(t, &l)
		redistest.MustUnlock(t, next)
	})
}
