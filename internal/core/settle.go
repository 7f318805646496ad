package core

import (
	"context"
	"time"

	"github.com/lockkit/lockkit"
)

// SettleRetry spaces the tries of an Unlock in doubt settled in the
// background (see settleLater, and a cohort's in package reentrant): from
// 20 ms, doubling, up to 2 s.
var SettleRetry = Backoff{Floor: 20 * time.Millisecond, Cap: 2 * time.Second}

// unlockOutcome is the outcome of an Unlock in doubt that r settled in the
// background, kept for the next Release (see settleLater).
type unlockOutcome struct{ err error }

// settleLater settles, in a goroutine of the Client, the Unlock in doubt
// of h's last acquire: its release reached Redis or not, and nobody may
// ever call Release again (a deferred Unlock whose error is dropped),
// while the watchdog renews a hold that Redis may still have. It asks
// again, under the same unlock id, so that it never releases twice,
// pausing 20 ms doubling to 2 s between tries, until Redis answers or the
// Client is closed (which reports the hold lost). The outcome is kept for
// the next Release, which would otherwise have asked again itself. A
// Release or a lost hold that settles h first ends the tries. r.op held.
func (r *Holder) settleLater(h *Hold) {
	if r.background == h {
		return
	}
	r.background = h
	c := r.cfg.Client
	c.Go(func() { retryLater(c, 0, func(int) bool { return r.settleTry(h) }) })
}

// retryLater calls try, pausing SettleRetry before each call, until it
// reports that it is done, or c is closed and it has made afterClose more
// calls since (without pausing: Close waits for them). try is given the
// number of its call, from 1.
func retryLater(c *lockkit.Client, afterClose int, try func(n int) bool) {
	t := time.NewTimer(SettleRetry.Bound(0))
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-t.C:
		case <-c.Done():
		}
		if c.Err() != nil {
			if afterClose == 0 {
				return
			}
			afterClose--
		}
		if try(n) {
			return
		}
		t.Reset(SettleRetry.Bound(n))
	}
}

// settleTry makes one try of settleLater for h, and reports whether the
// tries are over: Redis answered, or h is no longer in doubt.
func (r *Holder) settleTry(h *Hold) bool {
	ctx, cancel := Detached(context.Background())
	defer cancel()
	if err := r.lock(ctx); err != nil {
		return false
	}
	defer r.op.Unlock()
	if r.background != h {
		return true
	}
	var outcome, err error
	r.endLater = h
	defer func() { r.endLater = nil }()
	switch {
	case r.pending == h:
		outcome, err = r.releasePending(ctx, h)
	case r.Current() != h || !h.unlocking.Load():
		// A Release settled it.
		r.background = nil
		return true
	case h.Err() != nil:
		outcome, err = r.releaseLost(ctx, h)
	default:
		outcome, err = r.releaseCurrent(ctx, h)
	}
	if err != nil {
		return false
	}
	r.background = nil
	r.settled.Store(&unlockOutcome{outcome})
	if r.Current() != h {
		h.End() // after the outcome is kept: see endLater
	}
	return true
}

// Owes reports whether r's next Release has something to settle: a hold,
// lost or not, or the outcome of an Unlock in doubt that r settled in the
// background.
func (r *Holder) Owes() bool {
	return r.Current() != nil || r.settled.Load() != nil
}

// Forget drops the current hold without asking Redis (no longer renewed,
// it ends with its lease) and the outcome of an Unlock in doubt settled in
// the background: r's next Release starts afresh. The caller holds Op.
func (r *Holder) Forget() {
	_ = r.Suspended(func() error { return nil })
	r.settled.Store(nil)
}
