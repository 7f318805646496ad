package redistest

import (
	"context"
	"testing"
	"time"
)

// Generous bounds on the calls the helpers make: reaching one means the
// lock hangs.
const (
	lockTimeout  = 10 * time.Second // Lock and Unlock
	queryTimeout = 5 * time.Second  // HoldCount
)

// MustLock locks m and fails the test if Lock fails or takes longer than
// 10 s.
func MustLock(t testing.TB, m NamedLocker) {
	t.Helper()
	if err := m.Lock(Ctx(t, lockTimeout)); err != nil {
		t.Fatalf("Lock(%s): %v", m.Name(), err)
	}
}

// MustUnlock unlocks m and fails the test if Unlock fails or takes longer
// than 10 s.
func MustUnlock(t testing.TB, m NamedLocker) {
	t.Helper()
	if err := m.Unlock(Ctx(t, lockTimeout)); err != nil {
		t.Fatalf("Unlock(%s): %v", m.Name(), err)
	}
}

// WantHoldCount fails the test unless m's HoldCount reports want holds.
func WantHoldCount(t testing.TB, m interface {
	HoldCount(context.Context) (int, error)
}, want int) {
	t.Helper()
	got, err := m.HoldCount(Ctx(t, queryTimeout))
	if err != nil || got != want {
		t.Fatalf("HoldCount = %d, %v; want %d", got, err, want)
	}
}
