package internal

import (
	"context"
	"time"

	"github.com/lockkit/lockkit/notify"
)

// Attempt makes one try at a lock. It reports whether the lock was taken
// and how long the lock may stay taken without a release message: when it
// failed, the blocker's remaining lease; when it succeeded, the lease of the
// new hold. A negative wait means no bound; zero means try again at once.
type Attempt func(ctx context.Context) (acquired bool, wait time.Duration, err error)

// Acquire runs the wait protocol shared by the pub/sub-woken locks:
//
//  1. attempt, unless goroutines of this process already wait on channel
//     (an uncontended lock costs this one round trip; a newcomer does not
//     barge past local waiters, which keeps hand-off within a process in
//     arrival order and waits short);
//  2. join the channel's local FIFO and subscribe, waiting until Redis
//     confirms the subscription;
//  3. if first in the FIFO, attempt again, so a release between 1 and 2 is
//     not missed;
//  4. sleep until woken by a release, or, for the first in the FIFO, until
//     the blocker's lease runs out; then attempt and go back to 4.
//
// When ctx ends first it returns NotObtained(name, ctx.Err()); an attempt's
// Redis error is returned as is.
func Acquire(ctx context.Context, n *notify.Notifier, channel, name string, attempt Attempt) error {
	if err := ctx.Err(); err != nil {
		return NotObtained(name, err)
	}
	if n.Waiters(channel) == 0 {
		ok, _, err := attempt(ctx)
		if ok || err != nil {
			return CtxError(ctx, name, err)
		}
	}
	w, err := n.Subscribe(ctx, channel)
	if err != nil {
		return CtxError(ctx, name, err)
	}
	acquired := false
	defer func() { w.Leave(acquired) }()
	try := w.Head()
	for {
		if try {
			ok, wait, err := attempt(ctx)
			if err != nil {
				return CtxError(ctx, name, err)
			}
			// Acquired: the next head times its wait by our lease.
			w.SetDeadline(wait)
			if ok {
				acquired = true
				return nil
			}
		}
		if err := w.WaitTurn(ctx); err != nil {
			return NotObtained(name, err)
		}
		try = true
	}
}

// CtxError turns err, the error of an attempt at lock name, into
// NotObtained when it came from ctx ending, and returns it as is otherwise.
func CtxError(ctx context.Context, name string, err error) error {
	if err != nil && ctx.Err() != nil {
		return NotObtained(name, ctx.Err())
	}
	return err
}
