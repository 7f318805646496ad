package redistest

import (
	"testing"
	"time"
)

// Receive returns the next value sent on ch, and fails the test, naming
// what it waited for, if none arrives within timeout. A closed channel
// yields its zero value at once, so Receive also waits for a channel, such
// as a lock's lost signal, to be closed.
func Receive[T any](t testing.TB, ch <-chan T, timeout time.Duration, what string) T {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
		panic("unreachable")
	}
}
