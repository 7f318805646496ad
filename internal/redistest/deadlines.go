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
// must do against a server that stopped answering (see [Server.Stall] and
// [Silence]). The keys of calls name them in the failures; it returns
// their errors by the same keys, for what else a test checks of them.
func WantDeadlines(t testing.TB, timeout time.Duration, calls map[string]func(context.Context) error) map[string]error {
	t.Helper()
	chans := make(map[string]chan error, len(calls))
	for name, call := range calls {
		got := make(chan error, 1)
		chans[name] = got
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			got <- call(ctx)
		}()
	}
	errs := make(map[string]error, len(calls))
	for name, got := range chans {
		err := Receive(t, got, Hang, name+" to return")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s against a server that does not answer = %v, want DeadlineExceeded", name, err)
		}
		errs[name] = err
	}
	return errs
}
