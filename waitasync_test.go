package lockkit_test

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit"
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
