package reentrant_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

// waitsForUnlock checks that the Lock whose error got carries still waits
// while holder holds, then has holder unlock and waits up to d for that
// Lock to return with the lock. what names the Lock.
func waitsForUnlock(t *testing.T, holder redistest.NamedLocker, got <-chan error, d time.Duration, what string) {
	t.Helper()
	select {
	case err := <-got:
		t.Fatalf("%s returned (%v) before the holder's Unlock; want it to wait", what, err)
	default:
	}
	redistest.MustUnlock(t, holder)
	if err := redistest.Receive(t, got, d, what); err != nil {
		t.Fatalf("%s after the holder's Unlock = %v; want the lock", what, err)
	}
}
