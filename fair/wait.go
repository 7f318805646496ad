package fair

import (
	"context"
	"errors"
	"time"

	"github.com/lockkit/lockkit/internal"
	"github.com/lockkit/lockkit/notify"
)

// leaveTimeout bounds the clean-up that Lock and TryLock send after their
// ctx ended or an attempt failed; it runs on a context that is not
// cancelled with the caller's.
const leaveTimeout = 2 * time.Second

// attempt makes one try at the lock: take it if it is free and m is first
// in line, re-enter it if m holds it, and otherwise (when join is set) put
// m in the queue or renew its place there. When the lock was not taken it
// returns how long to wait at most before trying again (see acquire.lua).
func (m *Mutex) attempt(ctx context.Context, join bool) (bool, time.Duration, error) {
	m.op.Lock()
	defer m.op.Unlock()
	pre := m.holder.Prepare()
	sent := time.Now()
	res, err := runAcquire(ctx, m.client, m.keys, m.opts.Owner, m.opts.TTL(), m.opts.waiterTimeout, join)
	if err != nil {
		m.holder.Abort(pre)
		return false, 0, internal.Op("lock", m.name, err)
	}
	if res.count == 0 {
		m.holder.Abort(pre)
		return false, res.wait, nil
	}
	m.holder.Acquired(pre, res.token, sent)
	return true, 0, nil
}

// wait is Lock's wait loop:
//
//  1. attempt, joining the queue (an uncontended lock costs this one
//     round trip);
//  2. subscribe to m's own channel and wait until Redis confirms it;
//  3. attempt again, so that a release that made m first in line between
//     1 and 2 is not missed;
//  4. wait for a wake-up on m's channel, for the bound the attempt
//     returned (the holder's lease, the deadline of the waiter ahead) or
//     for the heartbeat, whichever comes first, and go back to 3; each
//     attempt renews m's place in the queue.
//
// After a Lock that had to wait, the next Lock of m subscribes first and
// starts at 3, one attempt fewer for a lock that is usually contended.
func (m *Mutex) wait(ctx context.Context) error {
	m.mu.Lock()
	m.waiting++
	m.mu.Unlock()

	var w *notify.Waiter
	defer func() {
		if w != nil {
			// A wake-up m acted on passes on to another goroutine waiting
			// as the same owner (it then re-enters); with none, it is
			// dropped.
			w.Leave(false)
		}
	}()
	if m.contended.Load() && m.holder.Live() == nil {
		var err error
		if w, err = m.nt.Subscribe(ctx, m.channel); err != nil {
			return m.exit(ctx, internal.Op("subscribe", m.name, err), false, false)
		}
	}
	for first := true; ; first = false {
		ok, wait, err := m.attempt(ctx, true)
		if err != nil {
			return m.exit(ctx, err, true, true)
		}
		if ok {
			m.contended.Store(!first)
			m.doneWaiting()
			return nil
		}
		if w == nil {
			if w, err = m.nt.Subscribe(ctx, m.channel); err != nil {
				return m.exit(ctx, internal.Op("subscribe", m.name, err), true, false)
			}
			continue
		}
		if err := w.Wait(ctx, m.bound(wait)); err != nil {
			return m.exit(ctx, err, true, false)
		}
	}
}

// bound returns how long a waiter sleeps before its next attempt when no
// wake-up comes: the bound an attempt returned (a lease or a deadline, plus
// a millisecond so that the server has passed it), but never longer than a
// third of the waiter timeout, so that the waiter's own entry is renewed
// well before it could expire.
func (m *Mutex) bound(wait time.Duration) time.Duration {
	beat := m.opts.waiterTimeout / 3
	if wait < 0 || wait >= beat {
		return beat
	}
	return wait + time.Millisecond
}

// doneWaiting counts a goroutine out of Lock and reports whether it was
// the last one in.
func (m *Mutex) doneWaiting() (last bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.waiting--
	return m.waiting == 0
}

// exit ends one goroutine's Lock that failed with cause, and cleans up: it
// removes m's queue entry if queued is set and no other goroutine still
// waits as m, and undoes a hold that an attempt with an unknown outcome may
// have taken if unknown is set. It returns the error Lock returns. m.op is
// held from the count to the clean-up, so that no attempt of another
// goroutine joining as m runs in between and then finds its entry gone.
func (m *Mutex) exit(ctx context.Context, cause error, queued, unknown bool) error {
	m.op.Lock()
	defer m.op.Unlock()
	last := m.doneWaiting()
	return m.cleanUp(ctx, cause, queued && last, unknown)
}

// cleanUp is the clean-up of a Lock or TryLock that failed with cause. It
// sends leave.lua when there is something to clean up, and returns cause
// (as ErrNotObtained if ctx ended) joined with the clean-up's own failure if
// any. An unknown outcome is undone only when the owner id is m's alone: a
// shared id's hold may belong to another Mutex. m.op held.
func (m *Mutex) cleanUp(ctx context.Context, cause error, remove, unknown bool) error {
	if ctx.Err() != nil {
		cause = internal.NotObtained(m.name, ctx.Err())
	}
	undo := unknown && m.opts.OwnOwner
	if !remove && !undo {
		return cause
	}
	var token, count int64
	if h := m.holder.Live(); h != nil {
		token, count = h.Token, h.Count
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaveTimeout)
	defer cancel()
	if _, err := runLeave(ctx, m.client, m.keys, m.opts.Owner, remove, undo, token, count); err != nil {
		return errors.Join(cause, internal.Op("leave queue", m.name, err))
	}
	return cause
}
