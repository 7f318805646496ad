package redistest

import (
	"context"
	"errors"
	"testing"
	"time"
)

// WantDeadlines makes every one of calls at once, each with a ctx that
// ends after timeout, and fails the test unless each returns (within
// [Hang]) an error matching context.DeadlineExceeded: what every call
// must do against a server that stopped answering (see [Server.Stall]).
// The keys of calls name them in the failures.
func WantDeadlines(t testing.TB, timeout time.Duration, calls map[string]func(context.Context) error) {
	t.Helper()
	errs := make(map[string]chan error, len(calls))
	for name, call := range calls {
		got := make(chan error, 1)
		errs[name] = got
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			got <- call(ctx)
		}()
	}
	for name, got := range errs {
		if err := Receive(t, got, Hang, name+" to return"); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s against a stalled server = %v, want DeadlineExceeded", name, err)
		}
	}
}
