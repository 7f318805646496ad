package election

import (
	"context"
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
// The observers are told by the same script that frees the leadership,
// so they are told whenever it was freed: also when ForceUnlock fails
// because its reply was lost, or came after ctx ended (it then returns
// false with the error, and the leadership may or may not have been
// freed; Leader tells). A name held by a lock of another kind is
// [lockkit.ErrWrongKind], and nothing changes.
func (e *Election) ForceUnlock(ctx context.Context) (bool, error) {
	if err := e.base().Check(ctx); err != nil {
		return false, err
	}
	return e.m.ForceUnlock(ctx)
}
