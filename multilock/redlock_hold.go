package multilock

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/watchdog"
)

// errValidityEnded is the cause given when a fixed-lease hold's validity
// time runs out.
var errValidityEnded = errors.New("validity time ended")

// redHold is one hold of a RedLock: from the round that took a majority to
// the Unlock that freed it or the moment it was found lost. Its parts, one
// per granting node, are holds of the nodes' core.Holders.
type redHold struct {
	// Hold's Token is the RedLock token, the largest of the nodes' tokens;
	// its Count, the Lock calls not yet undone, is guarded by RedLock.op.
	*core.Hold
	tr     *core.Tracer
	name   string
	quorum int

	// Guarded by RedLock.op.
	ending   bool // the last Unlock began: its releases decide the outcome
	released int  // nodes that released their part in the last Unlock
	settling bool // the nodes settle the last Unlock, in doubt (see settleLater)

	// mu guards what follows, and is held while h is found lost, so that
	// stop waits for that to end.
	mu      sync.Mutex
	alive   int  // granting nodes whose part was not found lost
	stopped bool // see stop

	timer *time.Timer // fixed leases: fires when the validity time ends (see begin)
}

// begin records the hold a successful round took, sent at start, and
// starts watching it: the hold is lost when fewer than a quorum of its
// parts are still held, in the call that finds the part lost that leaves
// fewer (a node's watchdog, or its Client's Close, which has reported the
// RedLock's hold lost too by the time it returns), or, with a fixed
// lease, when its validity time ends. r.op held.
func (r *RedLock) begin(res []nodeResult, token int64, start time.Time) {
	h := &redHold{
		Hold:   core.NewHold(token),
		tr:     r.tr,
		name:   r.b.Cfg.Name,
		quorum: r.quorum,
	}
	var parts []*core.Hold
	for i, x := range res {
		if !x.granted {
			continue
		}
		if part := r.nodes[i].h.Live(); part != nil {
			parts = append(parts, part)
		}
	}
	h.alive = len(parts)
	for _, part := range parts {
		part.AfterLost(h.nodeLost)
	}
	if !r.b.Cfg.Watched() {
		// The validity time ends, and the hold with it; or, when the
		// margin before which each node's fixed lease is reported over is
		// larger than the drift allowance, that margin before the lease
		// ends, when the nodes' parts would be lost anyway.
		ttl := r.b.Cfg.TTL()
		h.timer = time.AfterFunc(time.Until(start.Add(ttl-max(r.drift, watchdog.Margin(ttl)))), h.validityEnded)
	}
	h.mu.Lock()
	h.checkQuorum(nil)
	h.mu.Unlock()
	r.setHold(h)
}

// nodeLost records that one node no longer holds h, with cause; h is
// lost when fewer than a quorum of nodes still do.
func (h *redHold) nodeLost(cause error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.alive--
	h.checkQuorum(cause)
}

// checkQuorum marks h lost when fewer than a quorum of its parts are
// held, with cause (the last part's loss, if any), unless stop was
// called. h.mu held.
func (h *redHold) checkQuorum(cause error) {
	switch {
	case h.stopped || h.alive >= h.quorum:
	case cause != nil:
		h.lose(fmt.Errorf("held on %d nodes, %d needed; last node failure: %w", h.alive, h.quorum, cause))
	default:
		h.lose(fmt.Errorf("held on %d nodes, %d needed", h.alive, h.quorum))
	}
}

// validityEnded marks h lost, its validity time ended, unless stop was
// called.
func (h *redHold) validityEnded() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.stopped {
		h.lose(errValidityEnded)
	}
}

// lose marks h lost with cause and closes its lost channel. It is
// idempotent.
func (h *redHold) lose(cause error) {
	if h.Lose(h.name, cause) {
		h.tr.Lost(h.Hold)
	}
}

// stop stops watching h: once it returns, h is found lost only by the
// caller. It is idempotent.
func (h *redHold) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true
	if h.timer != nil {
		h.timer.Stop()
	}
}
