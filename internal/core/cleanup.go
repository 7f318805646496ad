package core

import (
	"context"
	"time"

	"github.com/lockkit/lockkit"
)

// CleanupGrace is how long past the end of its ctx a call waits for the
// clean-up of what it began (a waiter taking its place out of a queue, a
// writer withdrawing its intent, the word to an election's observers)
// before it returns: long enough for a server that answers, short enough
// that a call against one that does not still returns about by its
// deadline.
const CleanupGrace = 100 * time.Millisecond

// Cleanup runs clean in a goroutine of c (see lockkit.Client.Go), on a
// context detached from ctx and bounded by CleanupTimeout, and waits for
// it while ctx lasts and for CleanupGrace more. It returns clean's error,
// or nil when clean goes on in the background.
func Cleanup(ctx context.Context, c *lockkit.Client, clean func(context.Context) error) error {
	done := make(chan error, 1)
	c.Go(func() {
		ctx, cancel := Detached(ctx)
		defer cancel()
		done <- clean(ctx)
	})
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	select {
	case err := <-done:
		return err
	case <-time.After(CleanupGrace):
		return nil
	}
}
