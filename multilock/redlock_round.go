package multilock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
)

// nodeResult is what one node answered in a round.
type nodeResult struct {
	granted bool          // the node holds the lock for us
	token   int64         // the node's token, when granted
	raised  bool          // the node's counter is at the hold's token
	refused bool          // another owner holds it on this node
	wait    time.Duration // when refused: how long it may stay held (<0: no bound)
	err     error         // why the node neither granted nor refused
}

// round makes one round of the Redlock algorithm. On success r holds the
// lock; otherwise nothing is left taken, the wait bounds the sleep before
// the next round (negative: no bound), and the error says why, unless the
// lock was simply busy. r.op held, and r holds nothing.
func (r *RedLock) round(ctx context.Context) (bool, time.Duration, error) {
	name := r.b.Cfg.Name
	start := time.Now()
	res := r.acquireAll(ctx)
	granted, answered := 0, 0
	var firstErr, fatal error
	wait := time.Duration(-1)
	for _, x := range res {
		switch {
		case x.granted:
			granted++
			answered++
		case x.refused:
			answered++
			if x.wait >= 0 && (wait < 0 || x.wait < wait) {
				wait = x.wait
			}
		default:
			if fatal == nil && permanent(x.err) {
				fatal = x.err
			}
			if firstErr == nil {
				firstErr = x.err
			}
		}
	}
	raised := -1 // not tried
	// elapsed is how long the round had taken when its validity was last
	// checked: a round found too late reports it, not the time it then
	// takes to give the nodes back.
	elapsed := time.Since(start)
	if granted >= r.quorum && r.valid(elapsed) {
		token := int64(0)
		for _, x := range res {
			if x.granted {
				token = max(token, x.token)
			}
		}
		raised = r.raise(ctx, res, token)
		if err := r.clientErr(); err != nil {
			// A node's Client was closed during the round: r's every
			// later call but Unlock fails, so the round takes nothing
			// either, as a single lock's Lock whose acquire was on its
			// way takes nothing.
			if !errors.Is(fatal, lockkit.ErrClosed) {
				fatal = core.Op("lock", name, err)
			}
		} else if elapsed = time.Since(start); raised >= r.quorum && r.valid(elapsed) {
			r.begin(res, token, start)
			return true, r.b.Cfg.TTL(), nil
		}
	}
	r.abandon(ctx)
	switch {
	case fatal != nil:
		return false, wait, fatal
	case answered < r.quorum:
		return false, wait, fmt.Errorf("%w: %q: %d of %d nodes answered, %d needed; %w",
			lockkit.ErrQuorum, name, answered, len(r.nodes), r.quorum, firstErr)
	case raised >= 0 && raised < r.quorum:
		return false, wait, fmt.Errorf("%w: %q: a quorum granted it, but only %d of %d nodes "+
			"took its fencing token, %d needed", lockkit.ErrQuorum, name, raised, len(r.nodes), r.quorum)
	case granted >= r.quorum:
		return false, wait, fmt.Errorf("%w: %q: a quorum granted it, but too late: "+
			"%v of its %v lease went by (drift allowance %v)",
			lockkit.ErrNotObtained, name, elapsed.Round(time.Millisecond), r.b.Cfg.TTL(), r.drift)
	}
	return false, wait, nil
}

// valid reports whether a hold whose round has taken elapsed so far has
// validity time left: lease − elapsed − drift allowance > 0.
func (r *RedLock) valid(elapsed time.Duration) bool {
	return r.b.Cfg.TTL()-elapsed-r.drift > 0
}

// acquireAll asks every node at once to take the lock.
func (r *RedLock) acquireAll(ctx context.Context) []nodeResult {
	res := make([]nodeResult, len(r.nodes))
	var wg sync.WaitGroup
	for i, n := range r.nodes {
		wg.Go(func() { res[i] = r.acquireNode(ctx, n) })
	}
	wg.Wait()
	return res
}

// acquireNode runs the engine's acquire protocol on node n, within the
// node timeout. n's holder holds nothing.
func (r *RedLock) acquireNode(ctx context.Context, n *node) nodeResult {
	nctx, cancel := context.WithTimeout(ctx, r.nodeTimeout)
	defer cancel()
	ok, wait, err := n.h.Attempt(nctx, "lock")
	var x nodeResult
	switch {
	case err == nil && ok:
		x.granted, x.token = true, n.h.Token()
		if x.token == 0 && n.cfg.Client.Err() != nil {
			// Lost the moment it was taken: the Client was closed.
			x.granted, x.err = false, fmt.Errorf("node %d: %w", n.i, lockkit.ErrClosed)
		}
		// Otherwise a token of 0 means that a fixed lease ran out before
		// the reply came: the round has no validity time left (see valid).
	case err == nil:
		x.refused, x.wait = true, wait
	case ctx.Err() == nil && nctx.Err() != nil:
		x.err = fmt.Errorf("node %d: no answer within %v", n.i, r.nodeTimeout)
	default:
		x.err = fmt.Errorf("node %d: %w", n.i, err)
	}
	return x
}

// raise brings the fencing counter of every granting node whose token is
// below token up to it, each within the node timeout, and returns how many
// granting nodes now have a counter at token or above. A node whose hold
// vanished meanwhile no longer counts as granting.
func (r *RedLock) raise(ctx context.Context, res []nodeResult, token int64) int {
	var wg sync.WaitGroup
	for i := range res {
		x := &res[i]
		if !x.granted {
			continue
		}
		if x.token == token {
			x.raised = true
			continue
		}
		n := r.nodes[i]
		wg.Go(func() {
			nctx, cancel := context.WithTimeout(ctx, r.nodeTimeout)
			defer cancel()
			v, err := core.Call(nctx, n.cfg.Client, func(ctx context.Context) (int64, error) {
				return raiseScript.Run(ctx, n.cfg.Client.Redis(), r.keys, n.cfg.Owner, x.token, token).Int64()
			}, nil)
			switch {
			case err != nil:
				// Still held, as far as we know, but not raised.
			case v == 1:
				x.raised = true
			default:
				x.granted = false
			}
		})
	}
	wg.Wait()
	raised := 0
	for _, x := range res {
		if x.granted && x.raised {
			raised++
		}
	}
	return raised
}

// abandon undoes a failed round: it gives back every node's part (see
// settle) within ctx, so that the round's caller returns in time; a node
// cut short frees its part when the release, left running, reaches it, or
// else when the lease ends. When ctx has ended already, the parts are
// given back in the background, each node within the node timeout, and
// the next call of r waits for that first (see lockOp). A node's acquire
// that got no answer is undone by its holder when the answer comes. r.op
// held.
func (r *RedLock) abandon(ctx context.Context) {
	if ctx.Err() == nil {
		_, _ = r.settle(ctx)
		r.forget()
		return
	}
	done := make(chan struct{})
	r.givingBack = done
	r.nodes[0].cfg.Client.Go(func() {
		defer close(done)
		_, _ = r.settle(context.WithoutCancel(ctx))
		r.forget()
	})
}

// drop ends h, a hold that was lost or whose last Unlock failed, before a
// new round: it gives back what is left of it (see end), and returns the
// outcome an Unlock of it would have. When too few nodes answer to tell
// (unknown set), r keeps h, as Unlock does. r.op held.
func (r *RedLock) drop(ctx context.Context, h *redHold) (err error, unknown bool) {
	h.stop()
	if err, unknown = r.end(unlockCtx(ctx), h); unknown {
		return err, true
	}
	r.forget()
	r.setHold(nil)
	return err, false
}

// settle releases r's part of the hold on every node whose holder still
// has one (or settled its release in the background: see
// core.Holder.Owes), all at once, each within the node timeout and ctx
// (see unlockCtx). It returns how many nodes released a part they still
// held, and the errors of the nodes whose outcome is unknown: their
// holders keep their part and its unlock id, so that the next settle asks
// again without releasing twice. r.op held, or r.givingBack set for the caller.
func (r *RedLock) settle(ctx context.Context) (released int, failed []error) {
	errs := make([]error, len(r.nodes))
	freed := make([]bool, len(r.nodes))
	var wg sync.WaitGroup
	for i, n := range r.nodes {
		if n.h.Owes() {
			wg.Go(func() {
				nctx, cancel := context.WithTimeout(ctx, r.nodeTimeout)
				defer cancel()
				err := n.h.Release(nctx, "unlock")
				switch {
				case err == nil:
					freed[i] = true
				case core.InDoubt(err):
					errs[i] = fmt.Errorf("node %d: %w", i, err)
				}
			})
		}
	}
	wg.Wait()
	for i := range r.nodes {
		switch {
		case errs[i] != nil:
			failed = append(failed, errs[i])
		case freed[i]:
			released++
		}
	}
	return released, failed
}

// unlockCtx returns the ctx an Unlock called with ctx releases on: ctx
// itself, so that Unlock returns within its deadline (a node cut short is
// asked again by the next Unlock), or, when ctx has ended already, one
// without its end, so that a cancelled caller still releases (each node
// within the node timeout).
func unlockCtx(ctx context.Context) context.Context {
	if ctx.Err() != nil {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// end releases what is left of the ending hold h (see settle) and returns
// the Unlock's outcome: nil when a majority released it, ErrLost when it
// was lost or too few nodes still held it, and the nodes' errors with
// unknown set when too few answered to tell. r.op held.
func (r *RedLock) end(ctx context.Context, h *redHold) (err error, unknown bool) {
	released, failed := r.settle(ctx)
	h.released += released
	err = h.Err()
	switch {
	case err != nil:
	case h.released >= r.quorum:
	case h.released+len(failed) < r.quorum:
		h.lose(fmt.Errorf("released on %d nodes, %d needed", h.released, r.quorum))
		err = h.Err()
	default:
		return core.Op("unlock", r.b.Cfg.Name, errors.Join(failed...)), true
	}
	return err, false
}

// forget drops, without asking the nodes, every part of a hold that r's
// holders still have (those whose release could not be settled): they
// are no longer renewed and end with their lease. The outcomes of
// releases a holder settled in the background go with them. r.op held,
// or r.givingBack set for the caller.
func (r *RedLock) forget() {
	for _, n := range r.nodes {
		if !n.h.Owes() {
			continue
		}
		op := n.h.Op()
		// Never fails, with no deadline; a node's calls end with the node
		// timeout.
		_ = op.Lock(context.Background())
		n.h.Forget()
		op.Unlock()
	}
}

// releaseOwner undoes one acquire of the owner's hold when r holds nothing
// itself: its owner id is shared (WithOwner), and another value or process
// of the owner took the hold. Every node releases the owner's part, each
// within the node timeout; a node whose answer is lost is asked again by
// the next call without releasing twice (its holder keeps the unlock id).
// r.op held.
func (r *RedLock) releaseOwner(ctx context.Context) error {
	errs := make([]error, len(r.nodes))
	var wg sync.WaitGroup
	for i, n := range r.nodes {
		wg.Go(func() {
			nctx, cancel := context.WithTimeout(ctx, r.nodeTimeout)
			defer cancel()
			errs[i] = n.h.Release(nctx, "unlock")
		})
	}
	wg.Wait()
	released := 0
	var failed []error
	for i, err := range errs {
		switch {
		case err == nil:
			released++
		case !errors.Is(err, lockkit.ErrNotHeld):
			failed = append(failed, fmt.Errorf("node %d: %w", i, err))
		}
	}
	name := r.b.Cfg.Name
	switch {
	case released >= r.quorum:
		return nil
	case released+len(failed) >= r.quorum:
		// The nodes that did not answer may have made a majority release.
		return core.Op("unlock", name, errors.Join(failed...))
	case released == 0:
		return core.NotHeld(name)
	}
	return core.Lost(name, fmt.Errorf("released on %d nodes, %d needed", released, r.quorum))
}
