package multilock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
)

// RedLock is a lock over N independent Redis masters (the Redlock
// algorithm): it is held while a majority of them, N/2+1, hold it for the
// same owner, so it survives the loss of up to (N-1)/2 masters, and no
// failover can hand it to a second owner. See the package documentation
// for what it does and does not guarantee.
//
// Each RedLock is one owner, as with [lockkit.WithOwner] several values
// can be: locking it again while it is held re-enters without talking to
// Redis, and any goroutine may Unlock it. On each node its part of the
// hold is an ordinary hold of the engine, renewed by that node's Client's
// watchdog and released with the same retry-safe, fenced release as every
// other lock kind.
//
// A RedLock is safe for concurrent use. Use it through the pointer
// NewRedLock returns; a zero RedLock is not usable (its methods return
// [lockkit.ErrInvalid]).
type RedLock struct {
	b           core.Base // node 0's: the name, the options, New's error
	nodes       []*node
	keys        []string // the KEYS of every node script, the same on every node
	quorum      int
	nodeTimeout time.Duration
	drift       time.Duration
	ownOwner    bool // the owner id was minted for this value
	waiter      core.Backoff

	// op serialises rounds and unlocks, so that the hold stays in step
	// with the nodes; it guards the hold's count and ending state.
	op *core.Serial

	tr   *core.Tracer
	hold *redHold  // the current hold, lost or not; nil when none. Guarded by op.
	held core.Slot // hold's core part, for Token and Lost

	// retry is the outcome of an Unlock in doubt that a Lock settled
	// before it took a new hold: the next Unlock, that Unlock's retry,
	// returns it. Guarded by op.
	retry *error

	// givingBack is closed when the give-back of a round that failed
	// after its ctx ended, left to run in the background, is done; nil
	// when none runs. Until then nothing else touches the nodes' parts
	// (see lockOp). Guarded by op.
	givingBack chan struct{}
}

var _ lockkit.Locker = (*RedLock)(nil)

// Lock locks r. It tries every node at once, each for at most the node
// timeout ([WithNodeTimeout]); it holds the lock when a majority granted
// it and the time that took, plus the drift allowance, left some of the
// lease (the validity time). Otherwise it gives back what it took, sleeps
// for a short random time (never past the blocking holder's lease) and
// tries again, until ctx ends. If r holds the lock already, Lock re-enters
// at once, without talking to Redis.
//
// After an Unlock whose outcome was unknown, Lock first settles it, asking
// those nodes again; the next Unlock, that Unlock's retry, returns its
// outcome and leaves the new hold be. While a node in doubt does not
// answer, even with a majority of the nodes up, r keeps the hold in doubt
// for the retry and takes no new one (the retry would release it): Lock
// tries again as through a node outage, and TryLock fails with an error
// matching [lockkit.ErrQuorum]. Call Unlock again once that node answers,
// or lock with another RedLock value, which the doubt does not hold up.
//
// When ctx ends first, the error matches both [lockkit.ErrNotObtained] and
// ctx.Err(), and r holds nothing it did not hold before. If the last round
// failed because fewer than a majority of nodes answered, the error also
// matches [lockkit.ErrQuorum] and says how many answered; so it does when
// the only round was cut short by ctx with fewer than a majority answered
// by then (a ctx shorter than the node timeout, say). Lock waits
// through node outages like it waits for a busy lock; use
// [RedLock.TryLock] to fail fast. A node's Client closed during a round
// (see [lockkit.Client.Close]) ends Lock and TryLock with an error
// matching [lockkit.ErrClosed], the round's parts given back on every
// node, even when the other nodes granted the lock; so does a node's
// go-redis client closed by its user, with an error matching
// redis.ErrClosed.
func (r *RedLock) Lock(ctx context.Context) error {
	if err := r.check(ctx); err != nil {
		return err
	}
	var last error // why the last round failed, beyond the lock being busy
	err := core.Wait(ctx, r.tr, r.b.Cfg.Name, r.waiter, func(ctx context.Context, _ ...any) (bool, time.Duration, error) {
		ok, wait, err := r.attempt(ctx)
		if err != nil && !permanent(err) {
			if ctx.Err() == nil || last == nil && errors.Is(err, lockkit.ErrQuorum) {
				// A round cut short by ctx says less than the one before;
				// with none before, that fewer than a majority of nodes
				// answered in the time it had.
				last = err
			}
			return false, wait, nil
		}
		return ok, wait, err
	})
	return withLast(err, last)
}

// TryLock makes one round over the nodes, without waiting, and reports
// whether r now holds the lock; it re-enters when r holds it already. It
// returns false and nil when other owners hold the lock; false and an
// error matching [lockkit.ErrQuorum] when fewer than a majority of nodes
// answered (or took the hold's fencing token), also when ctx ended before
// the node timeout (the error then also matches [lockkit.ErrNotObtained]
// and ctx.Err()); and false and an error matching
// [lockkit.ErrNotObtained] when a majority granted the lock too slowly for
// any validity time to be left.
func (r *RedLock) TryLock(ctx context.Context) (bool, error) {
	if err := r.check(ctx); err != nil {
		return false, err
	}
	ok, _, err := r.attempt(ctx)
	cerr := core.CtxError(ctx, r.b.Cfg.Name, err)
	if cerr != err && errors.Is(err, lockkit.ErrQuorum) {
		// Cut short by ctx, the round still tells that fewer than a
		// majority of nodes answered in the time it had.
		cerr = withLast(cerr, err)
	}
	return ok, cerr
}

// attempt re-enters the live hold, or drops a lost one and makes a round.
func (r *RedLock) attempt(ctx context.Context) (bool, time.Duration, error) {
	if err := r.lockOp(ctx); err != nil {
		return false, -1, err
	}
	defer r.op.Unlock()
	if h := r.hold; h != nil {
		if !h.ending && h.Err() == nil {
			h.Count++
			r.tr.Acquired(h.Token, true, core.Contended(ctx))
			return true, r.b.Cfg.TTL(), nil
		}
		inDoubt := h.ending && h.Err() == nil
		err, unknown := r.drop(ctx, h)
		if unknown {
			// r keeps the hold for the retry of its Unlock, which asks
			// those nodes again; that retry would release a hold taken
			// now.
			return false, -1, fmt.Errorf("%w: %q: the last Unlock is still in doubt: %w",
				lockkit.ErrQuorum, r.b.Cfg.Name, err)
		}
		if inDoubt {
			// The next Unlock is the retry of the one in doubt, which this
			// settled: it returns this outcome and leaves the new hold be.
			r.retry = &err
		}
	}
	ok, wait, err := r.round(ctx)
	if ok {
		r.tr.Acquired(r.hold.Token, false, core.Contended(ctx))
	}
	return ok, wait, err
}

// Unlock undoes one Lock. The last one releases the lock on every node
// that holds it, at once, each within the node timeout and ctx: Unlock
// returns within ctx's deadline. When ctx has ended already (a request
// cancelled while holding the lock, say) it still releases, each node
// within the node timeout.
//
// It returns nil when a majority of nodes released it; an error matching
// [lockkit.ErrNotHeld] when r holds nothing; and [lockkit.ErrLost] when
// the hold was lost (its lost channel closed) or fewer than a majority
// still held it: another owner may have had the lock meanwhile. Nodes that
// do not answer in time then free their part when its lease ends, as it is
// no longer renewed. When so many nodes do not answer that the outcome is
// unknown, Unlock returns their errors and r keeps the hold: calling
// Unlock again asks those nodes again, without releasing anything twice.
// Meanwhile each of those nodes is asked again in the background until it
// answers, as a single lock's failed Unlock is, so that a RedLock whose
// Unlock is never called again does not stay held on them; once they all
// have, r holds nothing (Token returns 0, Context has ended), and the next
// Unlock returns the outcome.
func (r *RedLock) Unlock(ctx context.Context) error {
	if err := r.base().CheckInput(ctx); err != nil {
		return err
	}
	ctx = unlockCtx(ctx)
	name := r.b.Cfg.Name
	if err := r.lockOp(ctx); err != nil {
		return core.Op("unlock", name, err)
	}
	defer r.op.Unlock()
	if p := r.retry; p != nil {
		r.retry = nil
		return *p
	}
	h := r.hold
	if h == nil {
		if err := r.clientErr(); err != nil {
			return core.Op("unlock", name, err)
		}
		if r.ownOwner {
			return core.NotHeld(name)
		}
		return r.releaseOwner(ctx)
	}
	if !h.ending && h.Err() == nil && h.Count > 1 {
		h.Count--
		r.tr.Released(h.Hold, false, nil)
		return nil
	}
	if !h.ending {
		// From here on the releases decide whether the hold was kept.
		h.ending = true
		h.stop()
	}
	err, unknown := r.end(ctx, h)
	if unknown {
		r.settleLater(h)
		return err
	}
	r.forget()
	r.setHold(nil)
	r.tr.Released(h.Hold, true, err)
	return err
}

// Token returns the fencing token of r's current hold, or 0 when r holds
// nothing. It is the largest of the tokens the granting nodes minted, and
// before Lock returned every granting node's counter was brought up to
// it; see the package documentation for why tokens strictly increase per
// name and when they may not. A re-entry keeps the token of the hold.
func (r *RedLock) Token() int64 {
	if r == nil {
		return 0
	}
	return r.held.Token()
}

// Lost returns a channel that is closed when r's current hold is lost: the
// nodes' watchdogs found it gone, or could not renew it, on so many nodes
// that fewer than a majority still hold it; or, with [lockkit.WithLease],
// its validity time ended (see the package doc). (A closed Client reports its node's part lost:
// the Close that leaves fewer than a majority of the nodes holding it has
// closed the channel when it returns.) Nothing is ever sent on it, and
// Unlock does not close it unless it finds the hold lost. It returns nil (a channel that never
// fires) when r holds nothing; call it after Lock.
func (r *RedLock) Lost() <-chan struct{} {
	if r == nil {
		return nil
	}
	return r.held.Lost()
}

// Context returns a copy of parent that is cancelled when r's current
// hold ends: when it is lost, with a cause matching [lockkit.ErrLost] (see
// [context.Cause]), and when Unlock releases it, with a cause matching
// [lockkit.ErrNotHeld]. When r holds nothing it is cancelled already, and
// so it is, with the loss, when r's hold was lost before the call and not
// yet unlocked. Call it after Lock; a nil parent counts as
// context.Background().
func (r *RedLock) Context(parent context.Context) context.Context {
	if r == nil {
		return (*core.Slot)(nil).Context(parent)
	}
	return r.held.Context(parent)
}

// Name returns the lock's name.
func (r *RedLock) Name() string { return r.base().Name() }

// Quorum returns how many nodes must hold the lock: N/2+1 of N (0 for a
// RedLock made with invalid arguments).
func (r *RedLock) Quorum() int {
	if r == nil {
		return 0
	}
	return r.quorum
}

// base returns r's base, or nil for a nil r.
func (r *RedLock) base() *core.Base {
	if r == nil {
		return nil
	}
	return &r.b
}

// check is core.Base.Check over every node's Client.
func (r *RedLock) check(ctx context.Context) error {
	if err := r.base().Check(ctx); err != nil {
		return err
	}
	if err := r.clientErr(); err != nil {
		return core.Op("use", r.b.Cfg.Name, err)
	}
	return nil
}

// clientErr returns the error of the first node's Client that is not
// usable (closed), or nil.
func (r *RedLock) clientErr() error {
	for _, n := range r.nodes {
		if err := n.cfg.Client.Err(); err != nil {
			return err
		}
	}
	return nil
}

// lockOp locks r.op once the give-back of a failed round that runs in the
// background (see abandon) is done, or returns ctx's error when ctx ends
// first.
func (r *RedLock) lockOp(ctx context.Context) error {
	if err := r.op.Lock(ctx); err != nil {
		return err
	}
	if g := r.givingBack; g != nil {
		select {
		case <-g:
			r.givingBack = nil
		case <-ctx.Done():
			r.op.Unlock()
			return ctx.Err()
		}
	}
	return nil
}

// setHold makes h the current hold; nil when none. r.op held.
func (r *RedLock) setHold(h *redHold) {
	if r.hold != nil && r.hold != h {
		r.hold.End()
	}
	r.hold = h
	if h == nil {
		r.held.Set(nil)
		return
	}
	r.held.Set(h.Hold)
}
