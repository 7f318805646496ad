package internal

import (
	"context"
	"time"

	"github.com/lockkit/lockkit/notify"
)

// Attempt makes one try at a lock. It reports whether the lock was taken
// and, if not, how long the wait may last before it is worth trying again
// without a wake-up: the blocker's remaining lease. A negative wait means no
// bound (wait for a wake-up only); zero means try again at once.
type Attempt func(ctx context.Context) (acquired bool, wait time.Duration, err error)

// Acquire runs the wait protocol shared by the pub/sub-woken locks:
//
//  1. attempt (an uncontended lock costs this one round trip);
//  2. subscribe to channel and wait until Redis confirms it;
//  3. attempt again, so a release between 1 and 2 is not missed;
//  4. wait for a wake-up, for the lease returned by the attempt, or for ctx,
//     and go back to 3.
//
// When ctx ends first it returns NotObtained(name, ctx.Err()); an attempt's
// Redis error is returned as is.
func Acquire(ctx context.Context, n *notify.Notifier, channel, name string, attempt Attempt) error {
	if err := ctx.Err(); err != nil {
		return NotObtained(name, err)
	}
	ok, _, err := attempt(ctx)
	if ok || err != nil {
		return ctxError(ctx, name, err)
	}
	w, err := n.Subscribe(ctx, channel)
	if err != nil {
		return ctxError(ctx, name, err)
	}
	acquired := false
	defer func() { w.Leave(acquired) }()
	for {
		ok, wait, err := attempt(ctx)
		if err != nil {
			return ctxError(ctx, name, err)
		}
		if ok {
			acquired = true
			return nil
		}
		if wait > 0 {
			// Let the server expire the key before we look again.
			wait += time.Millisecond
		}
		if err := w.Wait(ctx, wait); err != nil {
			return NotObtained(name, err)
		}
	}
}

// ctxError turns err into NotObtained when it came from ctx ending.
func ctxError(ctx context.Context, name string, err error) error {
	if err != nil && ctx.Err() != nil {
		return NotObtained(name, ctx.Err())
	}
	return err
}
