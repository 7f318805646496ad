package lockkit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// waitOutcome is what a wait of a contended kind returned: the release of
// what it took, and its error.
type waitOutcome struct {
	release func(context.Context) error
	err     error
}

// startWait starts k's wait for name on c, with ctx, and returns the
// channel its outcome arrives on once the wait is waiting (see
// awaitWaiting; started comes from waitStarted's Trace on c).
func startWait(ctx context.Context, t *testing.T, k contended, c *lockkit.Client, name string, started <-chan struct{}) <-chan waitOutcome {
	t.Helper()
	got := make(chan waitOutcome, 1)
	go func() {
		release, err := k.wait(ctx, c, name)
		got <- waitOutcome{release, err}
	}()
	awaitWaiting(t, k, c, started)
	return got
}

// endsAtClose closes, through closer, what the wait whose outcome arrives
// on got runs on, and checks that the wait then returns within
// closedBound with an error matching want; who names the waiter.
func endsAtClose(t *testing.T, got <-chan waitOutcome, closer func() error, want error, who string) {
	t.Helper()
	if err := closer(); err != nil {
		t.Fatal(err)
	}
	if o := redistest.Receive(t, got, closedBound, who+" to return"); !errors.Is(o.err, want) {
		t.Errorf("%s = %v; want an error matching %v", who, o.err, want)
	}
}
