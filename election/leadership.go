package election

import (
	"context"
	"sync/atomic"

	"github.com/lockkit/lockkit/internal/core"
)

// Leadership is a won campaign: e leads until Resign, or until the
// leadership is lost. A nil Leadership (what a failed Campaign returns)
// leads nothing: its Leader is the zero Leader, its Context has ended and
// its Resign returns an error matching [lockkit.ErrInvalid].
type Leadership struct {
	e        *Election
	leader   Leader
	ctx      context.Context
	resign   context.CancelCauseFunc // ends ctx at a Resign in doubt
	resigned atomic.Bool
}

// Leader returns the value the leadership was won with and its term. Pass
// the term, as a fencing token, to what the leader writes to, so that
// writes of a deposed leader that still thinks it leads (paused past its
// lease, say) can be refused: the next leader's term is larger.
func (l *Leadership) Leader() Leader {
	if l == nil {
		return Leader{}
	}
	return l.leader
}

// Context returns a context that ends when the leadership ends: with a
// cause matching [lockkit.ErrLost] (see [context.Cause]) when it is lost
// (the watchdog found the lease gone or could not renew it in time, a
// fixed lease ran out, another Election force-unlocked the election, or
// the Client was closed), and with one matching [lockkit.ErrNotHeld]
// after Resign (also one that fails with its outcome unknown, but for an
// error reply of the server, which left it leading: the leader gave the
// leadership up), or after the leader's own Election force-unlocked it.
// Run the leader's work under it. It carries the values of the ctx given
// to Campaign, but not its cancellation.
func (l *Leadership) Context() context.Context {
	if l == nil || l.ctx == nil {
		return (*core.Slot)(nil).Context(context.Background()) // ended: nothing is held
	}
	return l.ctx
}

// Resign ends the leadership: it releases the leadership lock, which wakes
// a candidate, and tells the observers, in the same script. Afterwards the
// Election may campaign again. Call it also after the leadership was lost
// (it then returns an error matching [lockkit.ErrLost]). A second Resign
// returns [lockkit.ErrNotHeld] and changes nothing. Like Unlock, it
// releases even when ctx has ended (on a detached context, waiting at
// most 500 ms). If it fails with a Redis error its outcome is unknown
// (the observers were told if the leadership was released): calling
// Resign again settles it, and until then the Election cannot campaign.
func (l *Leadership) Resign(ctx context.Context) error {
	if l == nil {
		return core.Invalid("leadership not returned by Campaign (nil)")
	}
	e := l.e
	if err := e.base().CheckInput(ctx); err != nil {
		return err
	}
	if l.resigned.Swap(true) {
		return core.NotHeld(e.b.Cfg.Name)
	}
	err := e.m.Unlock(ctx)
	if core.InDoubt(err) {
		if !core.Refused(err) {
			// The leadership may be gone, or lost meanwhile, which the
			// retry, not the watchdog, tells: the leader's work stops
			// now. (A refused Resign left it leading.)
			l.resign(core.NotHeld(e.b.Cfg.Name))
		}
		l.resigned.Store(false) // a retry settles it
		return err
	}
	e.idle()
	return err
}
