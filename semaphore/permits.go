package semaphore

import (
	"context"
	"strconv"

	"github.com/lockkit/lockkit/internal/core"
)

// Permits is one hold of a semaphore's permits, returned by
// [Semaphore.Acquire] and [Semaphore.TryAcquire]: n permits taken at once
// and released at once, with one fencing token and one lease. It is safe
// for concurrent use.
type Permits struct {
	s    *Semaphore
	id   string // the hold's id, also its waiter id
	n    int
	h    *core.Holder
	hold *core.Hold // the hold taken, fixed once Acquire returns
}

// newPermits returns the holder of a new hold of n permits of s.
func (s *Semaphore) newPermits(n int) *Permits {
	cfg := &s.b.Cfg
	p := &Permits{s: s, id: core.NewOwner(), n: n}
	p.h = core.NewHolder(core.Spec{
		Config:      cfg,
		Hold:        p.id,
		Keys:        s.keys,
		RenewKeys:   s.renew,
		Acquire:     acquireScript,
		Release:     releaseScript,
		Renew:       renewScript,
		Undo:        undoScript,
		AcquireArgs: []any{s.permits, n, cfg.WaiterTimeout.Milliseconds(), s.chans, cfg.Expiry.Milliseconds()},
		ReleaseArgs: []any{s.permits, s.chans},
		UndoArgs:    []any{s.permits, s.chans},
		// An attempt whose caller gave up may have queued it again.
		Late: func() {
			ctx, cancel := core.Detached(context.Background())
			defer cancel()
			_ = s.leaveQueue(ctx, p)
		},
	})
	return p
}

// member is p's entry in the queue (see semaphore.lua).
func (p *Permits) member() string { return strconv.Itoa(p.n) + ":" + p.id }

// IDs returns the ids of the permits, ID/1 … ID/n, ID being the hold's
// (see [Holder]).
func (p *Permits) IDs() []string {
	if p == nil {
		return nil
	}
	ids := make([]string, p.n)
	for i := range ids {
		ids[i] = p.id + "/" + strconv.Itoa(i+1)
	}
	return ids
}

// Token returns the hold's fencing token: it strictly increases with
// every hold taken on the semaphore's name, across processes.
func (p *Permits) Token() int64 {
	if p == nil || p.hold == nil { // nil, or not returned by Acquire
		return 0
	}
	return p.hold.Token
}

// Lost returns a channel that is closed when the hold is found lost: its
// lease could not be renewed in time, or it was gone from Redis. Nothing
// is ever sent on it, and Release does not close it; nor does a loss
// found after a Release that failed with its outcome unknown (the permits
// are no longer the caller's to use): the Release called again tells.
func (p *Permits) Lost() <-chan struct{} {
	if p == nil || p.hold == nil { // nil, or not returned by Acquire
		return nil
	}
	return p.hold.Done()
}

// Release frees the permits and wakes the waiters they serve, in queue
// order. It returns [lockkit.ErrNotHeld] when they were released already,
// and an error matching [lockkit.ErrLost] when the hold was lost. It runs
// even when ctx has ended (bounded by a short clean-up time), so that a
// cancelled request never keeps its permits. After a Redis error whether
// it took effect is not known: call Release again, which does not
// release twice. A failed Release that is never called again does not
// keep the permits: they are released in the background, asking the
// server again (20 ms apart, doubling to 2 s) until it answers, and the
// next Release returns the outcome.
func (p *Permits) Release(ctx context.Context) error {
	if p == nil {
		return core.Invalid("permits not returned by Acquire (nil)")
	}
	if err := p.s.base().CheckInput(ctx); err != nil {
		return err
	}
	return p.h.Release(ctx, "release")
}
