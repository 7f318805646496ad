package election

import (
	"context"
	"fmt"

	"github.com/lockkit/lockkit/internal/core"
)

// ForceUnlock frees the leadership whoever holds it: an operator's last
// resort against a leader that is stuck but still renews its lease. It
// removes the leader's hold and its proclaimed value, wakes every waiting
// candidate (one of them leads next, with a larger term) and tells the
// observers that nobody leads, as Resign does. It reports whether there
// was a leadership to free.
//
// The deposed leader learns it from its watchdog: its Leadership's
// Context ends with a cause matching [lockkit.ErrLost], and its Resign
// returns ErrLost; until then it may think it leads, so let what it
// writes to check its term. If e itself leads, it freed its own
// leadership, as Resign would: its Leadership's Context ends at once,
// with a cause matching [lockkit.ErrNotHeld], and its Resign returns
// ErrNotHeld and lets e campaign again.
//
// The observers are told even when ctx ends just after the leadership was
// freed (on a detached context, waiting at most 500 ms); if they cannot be
// told, ForceUnlock returns true with that error, and they learn of the
// vacancy when the leader's lease would have run out. A name held by a
// lock of another kind is [lockkit.ErrWrongKind], and nothing changes.
func (e *Election) ForceUnlock(ctx context.Context) (bool, error) {
	if err := e.base().Check(ctx); err != nil {
		return false, err
	}
	freed, err := e.m.ForceUnlock(ctx)
	if err != nil || !freed {
		return freed, err
	}
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = core.Detached(ctx)
		defer cancel()
	}
	if err := e.tell(ctx); err != nil {
		return true, fmt.Errorf("lockkit: force unlock %q: freed, but telling the observers failed: %w", e.b.Cfg.Name, err)
	}
	return true, nil
}
