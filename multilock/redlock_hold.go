package multilock

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lockkit/lockkit/internal/core"
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

	mu    sync.Mutex // guards alive
	alive int        // granting nodes whose part was not found lost

	stopOnce sync.Once
	done     chan struct{}  // closed by stop: the watchers exit
	watchers sync.WaitGroup // one per granting node
	timer    *time.Timer    // fixed leases: fires when the validity time ends
}

// begin records the hold a successful round took, sent at start, and
// starts watching it: the hold is lost when fewer than a quorum of its
// parts are still held (each node's watchdog reports its part lost), or,
// with a fixed lease, when its validity time ends. r.op held.
func (r *RedLock) begin(res []nodeResult, token int64, start time.Time) {
	h := &redHold{
		Hold:   core.NewHold(token),
		tr:     r.tr,
		name:   r.b.Cfg.Name,
		quorum: r.quorum,
		done:   make(chan struct{}),
	}
	for i, x := range res {
		if !x.granted {
			continue
		}
		part := r.nodes[i].h.Live()
		if part == nil {
			continue
		}
		h.alive++
		h.watchers.Go(func() {
			select {
			case <-part.Done():
				h.nodeLost(part.Err())
			case <-h.done:
			}
		})
	}
	if !r.b.Cfg.Watched() {
		h.timer = time.AfterFunc(time.Until(start.Add(r.b.Cfg.TTL()-r.drift)), func() {
			h.lose(errValidityEnded)
		})
	}
	h.mu.Lock()
	alive := h.alive
	h.mu.Unlock()
	if alive < h.quorum {
		h.lose(fmt.Errorf("held on %d nodes, %d needed", alive, h.quorum))
	}
	r.setHold(h)
}

// nodeLost records that one node no longer holds h; h is lost when fewer
// than a quorum of nodes still do.
func (h *redHold) nodeLost(cause error) {
	h.mu.Lock()
	h.alive--
	alive := h.alive
	h.mu.Unlock()
	if alive < h.quorum {
		h.lose(fmt.Errorf("held on %d nodes, %d needed; last node failure: %w", alive, h.quorum, cause))
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
	h.stopOnce.Do(func() {
		close(h.done)
		if h.timer != nil {
			h.timer.Stop()
		}
		h.watchers.Wait()
	})
}
