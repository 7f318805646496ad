package multilock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockkit/lockkit/internal"
	"github.com/lockkit/lockkit/internal/hashlock"
	"github.com/lockkit/lockkit/watchdog"
)

// redHold is one hold of a RedLock: from the round that took a majority to
// the Unlock that freed it or the moment it was found lost.
type redHold struct {
	name   string
	token  int64 // the RedLock token: the largest of the nodes' tokens
	count  int   // Lock calls not yet undone; guarded by RedLock.op
	quorum int
	timer  *time.Timer // fixed leases: fires when the validity time ends

	mu    sync.Mutex // guards nodes[i].gone and alive
	nodes []nodeHold // by node index
	alive int        // granting nodes not found gone

	*internal.LostSignal
}

// nodeHold is the hold's part on one node.
type nodeHold struct {
	granted bool  // the node granted the hold
	unknown bool  // the node did not answer: it may hold it
	token   int64 // the node's token, when granted
	gone    bool  // the node's watchdog found it gone or could not renew it
	wh      *watchdog.Hold
}

// begin records the hold a successful round took and starts keeping it:
// each granting node's watchdog renews its part, or, with a fixed lease, a
// timer ends the hold with its validity time.
func (r *RedLock) begin(res []nodeResult, token int64, start time.Time) {
	h := &redHold{
		name:       r.name,
		token:      token,
		count:      1,
		quorum:     r.quorum,
		nodes:      make([]nodeHold, len(res)),
		LostSignal: internal.NewLostSignal(),
	}
	for i, x := range res {
		switch {
		case x.granted:
			h.nodes[i] = nodeHold{granted: true, token: x.token, wh: x.wh}
			h.alive++
		case x.wh != nil:
			x.wh.Stop()
		}
		h.nodes[i].unknown = x.err != nil
	}
	r.setHold(h)
	for i, x := range res {
		if !x.granted || x.wh == nil {
			continue
		}
		// The node's hold has the hash lock's layout (field = owner id,
		// ':token'), so it renews as one.
		l := hashlock.RenewLease(r.keys[0], r.owner, x.token, r.ttl)
		l.OnLost = func(cause error) { h.nodeLost(i, cause) }
		x.wh.Start(l, x.sent)
	}
	if r.nodes[0].wd == nil {
		h.timer = time.AfterFunc(time.Until(start.Add(r.ttl-r.drift)), func() {
			h.lose(errValidityEnded)
		})
	}
}

// nodeLost records that node i no longer holds h; h is lost when fewer than
// a quorum of nodes still do. It is called from the node's watchdog.
func (h *redHold) nodeLost(i int, cause error) {
	h.mu.Lock()
	if h.nodes[i].gone {
		h.mu.Unlock()
		return
	}
	h.nodes[i].gone = true
	h.alive--
	alive := h.alive
	h.mu.Unlock()
	if alive < h.quorum {
		err := fmt.Errorf("held on %d nodes, %d needed", alive, h.quorum)
		if cause != nil {
			err = fmt.Errorf("%w; last node failure: %w", err, cause)
		}
		h.lose(err)
	}
}

// lose marks h lost and closes its lost channel; it is idempotent.
func (h *redHold) lose(cause error) { h.Lose(h.name, cause) }

// end stops keeping h: no renewal is in flight or will be sent once it
// returns, and its lost signal no longer fires on its own.
func (r *RedLock) end(h *redHold) {
	for _, n := range h.nodes {
		if n.wh != nil {
			n.wh.Stop()
		}
	}
	if h.timer != nil {
		h.timer.Stop()
	}
}

func (r *RedLock) current() *redHold {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hold
}

func (r *RedLock) setHold(h *redHold) {
	r.mu.Lock()
	r.hold = h
	r.mu.Unlock()
}

// Unlock undoes one Lock. The last one frees the lock on every node that
// holds it, at once, giving each node a second (or the node timeout if
// longer) to answer even if ctx has ended, since the hold is given up
// either way.
//
// It returns nil when a majority of nodes still held the lock and released
// it; an error matching [ErrNotHeld] when r holds nothing; and [ErrLost]
// when the hold was lost (its lost channel closed) or fewer than a majority
// still held it: another owner may have had the lock meanwhile. If too many
// nodes fail to answer to tell, it returns their errors. In every case r
// holds nothing afterwards (unless re-entries remain); nodes that did not
// answer free the lock when its lease ends, as it is no longer renewed.
func (r *RedLock) Unlock(ctx context.Context) error {
	if r.err != nil {
		return r.err
	}
	r.op.Lock()
	defer r.op.Unlock()
	h := r.current()
	if h == nil {
		return internal.NotHeld(r.name)
	}
	if h.Err() == nil && h.count > 1 {
		h.count--
		return nil
	}
	r.end(h)
	r.setHold(nil)
	released, failed := r.releaseAll(ctx, h)
	if err := h.Err(); err != nil {
		return err
	}
	switch {
	case released >= r.quorum:
		return nil
	case released+len(failed) < r.quorum:
		h.lose(fmt.Errorf("released on %d nodes, %d needed", released, r.quorum))
		return h.Err()
	}
	return internal.Op("unlock", r.name, errors.Join(failed...))
}

// releaseAll frees h on every node that may hold it, at once, and returns
// how many of the granting nodes freed it and the errors of those that did
// not answer; ctx only lends its values. Nodes whose acquire went
// unanswered are asked too, for any hold of this owner, but only for up to
// the node timeout and with no account taken of the outcome.
func (r *RedLock) releaseAll(ctx context.Context, h *redHold) (released int, failed []error) {
	ctx = context.WithoutCancel(ctx)
	freed := make([]bool, len(h.nodes))
	errs := make([]error, len(h.nodes))
	var wg sync.WaitGroup
	for i, n := range h.nodes {
		switch {
		case n.granted:
			wg.Go(func() { freed[i], errs[i] = r.releaseNode(ctx, i, n.token, max(r.nodeTimeout, releaseTimeout)) })
		case n.unknown:
			wg.Go(func() { _, _ = r.releaseNode(ctx, i, 0, r.nodeTimeout) })
		}
	}
	wg.Wait()
	for i := range h.nodes {
		switch {
		case errs[i] != nil:
			failed = append(failed, errs[i])
		case freed[i]:
			released++
		}
	}
	return released, failed
}

// Token returns the fencing token of r's current hold, or 0 when r holds
// nothing. It is the largest of the tokens the granting nodes minted, and
// before Lock returned every granting node's counter was brought up to it;
// see the package documentation for why tokens strictly increase per name
// and when they may not.
func (r *RedLock) Token() int64 {
	if r.err != nil {
		return 0
	}
	if h := r.current(); h != nil && h.Err() == nil {
		return h.token
	}
	return 0
}

// Lost returns a channel that is closed when r's current hold is lost: the
// nodes' watchdogs found it gone, or could not renew it, on so many nodes
// that fewer than a majority still hold it; or, with [WithLease], its
// validity time ended. Nothing is ever sent on it, and Unlock does not close
// it unless it finds the hold lost. It returns nil (a channel that never
// fires) when r holds nothing; call it after Lock.
func (r *RedLock) Lost() <-chan struct{} {
	if r.err != nil {
		return nil
	}
	if h := r.current(); h != nil {
		return h.Done()
	}
	return nil
}

// Name returns the lock's name.
func (r *RedLock) Name() string { return r.name }

// Quorum returns how many nodes must hold the lock: N/2+1 of N.
func (r *RedLock) Quorum() int { return r.quorum }
