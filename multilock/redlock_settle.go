package multilock

import (
	"context"

	"github.com/lockkit/lockkit/internal/core"
)

// settleLater ends h, the hold of an Unlock in doubt, once the nodes have
// settled it: each node whose release was in doubt asks again in the
// background (see core.Holder), and when every such node has its answer,
// h ends as that Unlock would have ended it, and its outcome is kept for
// the next Unlock, that Unlock's retry (see RedLock.retry). Until then r
// reports the hold (Token, Context); after, r holds nothing, as a single
// lock whose Unlock in doubt was settled in the background. A call of r
// that settles h first (an Unlock or a Lock), or a node's Client closed,
// ends the waiting. r.op held.
func (r *RedLock) settleLater(h *redHold) {
	if h.settling {
		return
	}
	h.settling = true
	type part struct {
		n    *node
		hold *core.Hold
	}
	var parts []part
	for _, n := range r.nodes {
		if p := n.h.Current(); p != nil {
			parts = append(parts, part{n, p})
		}
	}
	go func() {
		for _, p := range parts {
			select {
			case <-p.hold.Ended():
			case <-h.Ended():
				return
			case <-p.n.cfg.Client.Done():
				return
			}
		}
		if r.lockOp(context.Background()) != nil {
			return
		}
		defer r.op.Unlock()
		ctx, cancel := core.Detached(context.Background())
		defer cancel()
		if r.hold != h {
			return
		}
		err, unknown := r.end(ctx, h)
		if unknown {
			return
		}
		r.forget()
		r.setHold(nil)
		r.retry = &err
		r.tr.Released(h.Hold, true, err)
	}()
}
