package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// ctx bounds one call of a test to callTimeout.
func ctx(t testing.TB) context.Context { return redistest.Ctx(t, callTimeout) }

// wantHoldCount checks the hold count of l when its kind reports one.
func wantHoldCount(t testing.TB, l lockkit.Locker, want int) {
	t.Helper()
	if c, ok := l.(counter); ok {
		redistest.WantHoldCount(t, c, want)
	}
}

// wantNotLost fails the test, saying why, if l's lost signal has closed;
// a kind without one passes.
func wantNotLost(t testing.TB, l lockkit.Locker, why string) {
	t.Helper()
	if lo, ok := l.(loser); ok {
		select {
		case <-lo.Lost():
			t.Fatal(why)
		default:
		}
	}
}

// token returns the fencing token of l, or 0 when its kind has none.
func token(l lockkit.Locker) int64 {
	if tk, ok := l.(tokener); ok {
		return tk.Token()
	}
	return 0
}

// contended returns a fresh name and two owners of it, the first holding
// it.
func (e *env) contended(t testing.TB) (name string, holder, other lockkit.Locker) {
	t.Helper()
	name = redistest.Unique(t)
	holder, other = e.lock(name), e.lock(name)
	redistest.MustLock(t, holder)
	return name, holder, other
}

// hammer runs rounds Lock–Unlock rounds on each of owners at once and
// checks that no two held the lock together and every round got it.
func hammer(t *testing.T, owners []redistest.Locker, rounds int) {
	t.Helper()
	total, err := redistest.Hammer(redistest.Ctx(t, 60*time.Second), owners, rounds)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(owners) * rounds; total != want {
		t.Fatalf("%d acquisitions, want %d", total, want)
	}
}
