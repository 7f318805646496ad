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

// ClosedGrace is how long past its Client's Close a call waits for the
// reply of its request on its way, and then for the give-back of what
// that request took, before it returns ErrClosed and leaves them to the
// background: long enough for a server that answers, loaded as it may be,
// that the call returns with nothing of it left; short enough that
// against one that does not the call still returns soon.
const ClosedGrace = time.Second

// closedGrace waits, once a call's Client has closed, ClosedGrace more at
// most for what comes on ch, or until ctx ends, and reports whether it
// came.
func closedGrace[T any](ctx context.Context, ch <-chan T) (v T, ok bool) {
	grace := time.NewTimer(ClosedGrace)
	defer grace.Stop()
	select {
	case v = <-ch:
		return v, true
	case <-ctx.Done():
	case <-grace.C:
	}
	return v, false
}

// Cleanup runs clean in a goroutine of c (see lockkit.Client.Go), on a
// context detached from ctx and bounded by CleanupTimeout, and waits for
// it while ctx lasts and c is open, and for CleanupGrace more. It returns
// clean's error, or nil when clean goes on in the background (see
// lockkit.Client.Go for when c's Close waits for it).
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
	case <-c.Done():
	}
	select {
	case err := <-done:
		return err
	case <-time.After(CleanupGrace):
		return nil
	}
}
