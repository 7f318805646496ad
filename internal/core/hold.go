package core

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkit/lockkit/watchdog"
)

// Hold is one hold: from the acquire that minted its token to the release
// that ended it or the moment it was found lost.
type Hold struct {
	// Token is the fencing token minted when the hold began.
	Token int64
	// Count is how many acquires of this holder the hold stands for and
	// that were not released yet. It differs from the count in Redis when
	// lock values share an owner id.
	Count int64
	// unlockID identifies an Unlock whose outcome is unknown (its reply was
	// lost), so that the next Unlock retries it instead of unlocking twice.
	unlockID string

	wh    *watchdog.Hold // renews the lease, or times a fixed one
	since time.Time      // when the acquire that began the hold was sent
	// from is the hold h is lent from (see Lend); nil for a hold of its
	// own.
	from *Hold

	// unlocking is set while the outcome of the Unlock of the holder's
	// last acquire is unknown (unlockID is kept for its retry). A renewal
	// that finds the hold gone meanwhile does not report it lost: the
	// Unlock may have ended it, and its retry tells (a token it released
	// is remembered). An Unlock that leaves acquires ends nothing, and
	// does not set it.
	unlocking atomic.Bool

	LostSignal
	// reporting is held while its holder marks h lost and reports it (see
	// Holder.lose), so that a release that found h lost reports its end
	// after that (see Holder.releaseLost), not before.
	reporting sync.Mutex

	endOnce sync.Once
	ended   chan struct{} // closed by End

	// ctx ends, with its cause, when the hold is lost or ends: in the
	// call of Lose or End itself, so that the contexts derived from it
	// (see Slot.Context) have ended when that call returns. Most holds
	// are never asked for it: it is made at its first use (see context),
	// ended already if the hold has (cause). Guarded by ctxMu.
	ctxMu  sync.Mutex
	ctx    context.Context
	cancel context.CancelCauseFunc
	cause  error // why the hold ended or was lost; nil while it lasts
}

// reported returns once the report of h's loss under way, if any, is
// done (see Holder.lose).
func (h *Hold) reported() {
	h.reporting.Lock()
	defer h.reporting.Unlock()
}

// NewHold returns a new hold, of one acquire, with token.
func NewHold(token int64) *Hold {
	return &Hold{Token: token, Count: 1, LostSignal: LostSignal{ch: make(chan struct{})}, ended: make(chan struct{}), since: time.Now()}
}

// context returns h's context, made at the first call.
func (h *Hold) context() context.Context {
	h.ctxMu.Lock()
	defer h.ctxMu.Unlock()
	if h.ctx == nil {
		h.ctx, h.cancel = context.WithCancelCause(context.Background())
		if h.cause != nil {
			h.cancel(h.cause)
		}
	}
	return h.ctx
}

// endContext ends h's context with cause, unless it has ended already
// (the first cause stays).
func (h *Hold) endContext(cause error) {
	h.ctxMu.Lock()
	defer h.ctxMu.Unlock()
	if h.cause == nil {
		h.cause = cause
	}
	if h.cancel != nil {
		h.cancel(cause)
	}
}

// Lose marks h lost (see LostSignal.Lose) and ends its context with the
// loss, before its lost channel closes: whoever sees the channel closed
// finds the context ended.
func (h *Hold) Lose(name string, cause error) bool {
	return h.LostSignal.lose(Lost(name, cause), h.endContext)
}

// End marks h as no longer its holder's current hold: released, dropped
// or replaced, and ends its context (with its loss, if it was lost). It is
// idempotent.
func (h *Hold) End() {
	h.endOnce.Do(func() {
		if err := h.Err(); err != nil {
			h.endContext(err)
		} else {
			h.endContext(errReleased)
		}
		close(h.ended)
	})
}

// Ended returns a channel closed by End.
func (h *Hold) Ended() <-chan struct{} { return h.ended }

// Lend returns a hold lent from src (a local hand-over of a process's
// hold), with its token: lost when src is, as any Slot that keeps it
// finds at once (see Slot.Current), and as whoever calls Catch makes it.
func Lend(src *Hold) *Hold {
	h := NewHold(src.Token)
	h.from = src
	h.Catch(src)
	return h
}

// Catch makes h lost, with src's error, if src is lost by now: a hold lent
// from src (a local hand-over of a process's hold) learns of its loss so.
func (h *Hold) Catch(src *Hold) {
	if err := src.Err(); err != nil {
		h.LostSignal.lose(err, h.endContext)
	}
}
