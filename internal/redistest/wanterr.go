package redistest

import (
	"errors"
	"testing"
)

// WantErr fails the test unless err is an error that matches every one of
// targets by errors.Is.
func WantErr(t testing.TB, err error, targets ...error) {
	t.Helper()
	if err == nil {
		t.Fatalf("got nil error, want one matching %v", targets)
	}
	for _, target := range targets {
		if !errors.Is(err, target) {
			t.Fatalf("error %q does not match %q", err, target)
		}
	}
}
