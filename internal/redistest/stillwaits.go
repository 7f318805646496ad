package redistest

import "testing"

// StillWaits waits until every dial that fail was armed to fail has
// failed, or until the call whose result arrives on got has returned, and
// fails the test if it returned: a call whose subscription to be woken
// fails for a moment must wait that out. what names the call.
func StillWaits[T any](t testing.TB, fail *FailDials, got <-chan T, what string) {
	t.Helper()
	Eventually(t, Hang, "the subscription's dials to fail, or "+what+" to return", func() bool {
		return fail.Left() == 0 || len(got) > 0
	})
	select {
	case r := <-got:
		t.Fatalf("%s whose subscription failed for a moment returned %+v before it could get what it waits for; want it to wait", what, r)
	default:
	}
}
