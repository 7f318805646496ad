package core

import (
	"context"
	"fmt"
)

// Release undoes one acquire of the current hold. It returns ErrNotHeld
// when nothing is held and ErrLost when the hold is lost or gone; a lost
// hold is still released, if its key lingers, for the waiters' sake (the
// token fences this). When ctx has ended already, the release still runs,
// on a detached ctx bounded by CleanupTimeout, so that a cancelled request
// never leaves its lock held. After a Redis error the outcome is unknown:
// the hold keeps its unlock id, so the next Release asks again without
// releasing twice. When that was the hold's last acquire, r also asks
// again in the background until Redis answers (see settleLater), so that
// a Release that is never called again does not keep the lock held; the
// next Release then returns that outcome.
func (r *Holder) Release(ctx context.Context, op string) error {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = Detached(ctx)
		defer cancel()
	}
	if err := r.lock(ctx); err != nil {
		return Op(op, r.cfg.Name, err)
	}
	defer r.op.Unlock()
	if s := r.settled.Swap(nil); s != nil {
		// The Unlock in doubt this Release retries was settled already.
		return s.err
	}
	if p := r.pending; p != nil {
		// This Release is the retry of the Unlock in doubt.
		outcome, err := r.releasePending(ctx, p)
		if err != nil {
			return Op(op, r.cfg.Name, err)
		}
		return outcome
	}
	h := r.Current()
	if h == nil {
		if err := r.cfg.Client.Err(); err != nil {
			return Op(op, r.cfg.Name, err)
		}
		if r.cfg.OwnOwner {
			return NotHeld(r.cfg.Name)
		}
		return r.releaseOwner(ctx, op)
	}
	if h.unlockID == "" {
		h.unlockID = newUnlockID()
	}
	if h.Err() != nil {
		// A fixed lease ends by our clock a little before the server's.
		outcome, err := r.releaseLost(ctx, h)
		if err != nil {
			// The loss is known, the release is not: the next Release
			// asks again.
			return fmt.Errorf("%w (releasing it: %w)", h.Err(), Op(op, r.cfg.Name, err))
		}
		return outcome
	}
	outcome, err := r.releaseCurrent(ctx, h)
	if err != nil {
		if h.unlocking.Load() { // the last acquire's release, in doubt
			r.settleLater(h)
		}
		return Op(op, r.cfg.Name, err)
	}
	return outcome
}

// releaseCurrent releases one acquire of h, the current hold, which is not
// lost, under its unlock id. It returns the Unlock's outcome once Redis
// answered (nil, or ErrLost when the hold was gone), and Redis's error
// when it did not: the hold then keeps its unlock id, and its renewal goes
// on. The release of r's last acquire of h may end the hold: its renewal
// is suspended meanwhile, and a loss found while its outcome is unknown is
// not reported (see Hold.unlocking). One that leaves acquires of r's
// ends nothing, whatever its outcome: the hold stays the caller's, renewed
// and watched as before, and a loss meanwhile is reported. r.op held.
func (r *Holder) releaseCurrent(ctx context.Context, h *Hold) (outcome, err error) {
	r.Slot.mu.Lock()
	last := h.Count == 1
	r.Slot.mu.Unlock()
	if last {
		h.wh.Suspend()
	}
	n, err := r.release(ctx, h)
	h.unlocking.Store(last && err != nil)
	switch {
	case err != nil:
		h.wh.Resume()
		return nil, err
	case n < 0:
		r.lose(h, nil)
		r.tr.Released(h, true, h.Err())
		return r.forget(h), nil
	case n == 0:
		r.end(h)
		r.tr.Released(h, true, nil)
	default:
		// Still held: by this holder's other acquires, or by another value
		// sharing the owner id once this one's are all undone.
		h.unlockID = ""
		r.Slot.mu.Lock()
		h.Count--
		left := h.Count
		r.Slot.mu.Unlock()
		if left > 0 {
			h.wh.Resume()
			r.tr.Released(h, false, nil)
		} else {
			if r.cfg.OwnOwner {
				// Acquires this value does not hold, though the owner id
				// is its own: undone before the server went back to older
				// data (a restart from a snapshot). Drop them, lest they
				// keep the lock held for a lease; if that fails, the lease
				// ends them.
				_ = r.dropStale(ctx, h.Token)
			}
			r.end(h)
			r.tr.Released(h, true, nil)
		}
	}
	return nil, nil
}

// releaseLost releases h, the current hold, found lost, in case its key
// lingers, and drops it: the outcome is its lost error. Every acquire h
// stands for is undone, not one: a hold lost by the Client's Close, or by
// our clock, is still there with all of them, and r holds nothing
// afterwards. It returns Redis's error when Redis did not answer: h then
// stays, with the acquires not yet undone and the unlock id of the release
// in doubt, so that the next Release (the owner's next Unlock of a
// re-entered hold, say) asks again without releasing twice. r.op held.
func (r *Holder) releaseLost(ctx context.Context, h *Hold) (outcome, err error) {
	for {
		r.Slot.mu.Lock()
		left := h.Count
		r.Slot.mu.Unlock()
		if left <= 0 {
			break
		}
		n, err := r.release(ctx, h)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		h.unlockID = newUnlockID() // the next acquire's release
		r.Slot.mu.Lock()
		h.Count--
		r.Slot.mu.Unlock()
	}
	// Reported after the loss: one that woke up to it (its context ended
	// as it was marked lost) may get here before Lost is reported.
	h.reported()
	r.tr.Released(h, true, h.Err())
	return r.forget(h), nil
}

// releasePending asks again for the release of p, a hold that a newer one
// replaced while an Unlock of it was in doubt, under the same unlock id.
// It returns the Unlock's outcome once Redis answered, and Redis's error
// when it did not (p stays pending). r.op held.
func (r *Holder) releasePending(ctx context.Context, p *Hold) (outcome, err error) {
	n, err := r.release(ctx, p)
	if err != nil {
		return nil, err
	}
	r.pending = nil
	if n < 0 {
		r.lose(p, nil)
		r.tr.Released(p, true, p.Err())
		return p.Err(), nil
	}
	r.tr.Released(p, true, nil)
	return nil, nil
}

// releaseWindow is ReleaseWindow in ms, as the release script takes it.
var releaseWindow any = ReleaseWindow.Milliseconds()

func (r *Holder) release(ctx context.Context, h *Hold) (int64, error) {
	return r.run(ctx, h.Token, h.unlockID)
}

// run runs the release script for the hold with token ("" for the owner's
// current hold) under unlock id.
func (r *Holder) run(ctx context.Context, token any, id string) (int64, error) {
	argv := r.releaseRunner.Args(4 + len(r.spec.ReleaseArgs))
	argv = append(argv, r.hold, token, id, releaseWindow)
	argv = append(argv, r.spec.ReleaseArgs...)
	// A release left behind is in doubt like one whose reply was lost:
	// its unlock id makes the retry safe.
	return Call(ctx, r.cfg.Client, func(ctx context.Context) (int64, error) {
		return r.releaseRunner.Run(ctx, r.cfg.Client.Redis(), argv).Int64()
	}, nil)
}

// releaseOwner undoes one acquire of the owner's hold when this value
// holds nothing itself: with a shared owner id (WithOwner), another value
// or process may have taken it, and any value of the owner may release it.
// The release names no token, only the owner. Its unlock id outlives an
// error, so that the next call retries it without releasing twice. r.op
// held.
func (r *Holder) releaseOwner(ctx context.Context, op string) error {
	if r.ownerUnlockID == "" {
		r.ownerUnlockID = newUnlockID()
	}
	n, err := r.run(ctx, "", r.ownerUnlockID)
	if err != nil {
		return Op(op, r.cfg.Name, err)
	}
	r.ownerUnlockID = ""
	if n < 0 {
		return NotHeld(r.cfg.Name)
	}
	return nil
}

// Suspended runs force, which removes holds whoever owns them, with the
// renewal of the current hold (if any) suspended: the hold ends when force
// succeeds and is renewed again when it fails. The caller holds Op.
func (r *Holder) Suspended(force func() error) error {
	h := r.Current()
	if h != nil {
		h.wh.Suspend()
	}
	err := force()
	switch {
	case h == nil:
	case err != nil:
		h.wh.Resume()
	default:
		r.end(h)
	}
	return err
}

// end drops h after the release that ended it, and ends it unless
// settleTry does that itself (endLater).
func (r *Holder) end(h *Hold) {
	r.stop(h)
	r.clear(h)
	if r.endLater != h {
		h.End()
	}
}

// forget drops h, already lost, and returns its error.
func (r *Holder) forget(h *Hold) error {
	r.end(h)
	return h.Err()
}

func (r *Holder) stop(h *Hold) {
	if h.wh != nil {
		h.wh.Stop()
	}
}

func (r *Holder) clear(h *Hold) {
	r.Slot.mu.Lock()
	if r.Slot.h == h {
		r.Slot.h = nil
	}
	r.Slot.mu.Unlock()
}
