package redistest

import (
	"testing"
	"time"
)

// pollInterval is how often [Eventually] checks its condition.
const pollInterval = 2 * time.Millisecond

// Eventually calls cond every couple of milliseconds until it reports true,
// and fails the test, naming what it waited for, if that does not happen
// within timeout. cond runs on the calling goroutine, so it may fail the
// test itself.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(pollInterval)
	}
}
