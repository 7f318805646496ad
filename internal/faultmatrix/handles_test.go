package faultmatrix_test

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/semaphore"
)

// permits is the number of permits of the matrix's semaphores: the
// checker lets two holders in at once and counts a third as an overlap.
const permits = 2

// tryCampaign bounds the Campaign that stands for a candidate's TryLock.
const tryCampaign = 100 * time.Millisecond

// valueHold is one hold of a kind whose Lock returns a value rather than
// holding in place: what the Unlock and queries of its Locker act on.
type valueHold interface {
	hold
	Release(ctx context.Context) error
}

// lastHold gives a Locker over such a kind its Unlock, Lost and Token:
// they act on the last hold its Lock or TryLock took. It is safe for
// concurrent use.
type lastHold struct {
	v atomic.Value // the last hold, of one concrete type; nil before the first
}

func (l *lastHold) set(h valueHold) { l.v.Store(h) }

func (l *lastHold) held() valueHold {
	h, _ := l.v.Load().(valueHold)
	return h
}

func (l *lastHold) Unlock(ctx context.Context) error {
	h := l.held()
	if h == nil {
		return lockkit.ErrNotHeld
	}
	return h.Release(ctx)
}

func (l *lastHold) Lost() <-chan struct{} {
	if h := l.held(); h != nil {
		return h.Lost()
	}
	return nil
}

func (l *lastHold) Token() int64 {
	if h := l.held(); h != nil {
		return h.Token()
	}
	return 0
}

// permitHolder is one owner of a semaphore as a Locker: Lock acquires one
// permit, Unlock releases it; its hold is the last permit acquired.
type permitHolder struct {
	s *semaphore.Semaphore
	lastHold
}

func (h *permitHolder) Name() string { return h.s.Name() }

func (h *permitHolder) Lock(ctx context.Context) error {
	p, err := h.s.Acquire(ctx, 1)
	if err == nil {
		h.set(p)
	}
	return err
}

func (h *permitHolder) TryLock(ctx context.Context) (bool, error) {
	p, err := h.s.TryAcquire(ctx, 1)
	if p == nil {
		return false, err
	}
	h.set(p)
	return true, nil
}

// candidate is one candidate of an election as a Locker: Lock campaigns,
// Unlock resigns; the leader's term is its token and the end of its
// leadership's context its lost signal.
type candidate struct {
	e     *election.Election
	value string
	lastHold
}

func newCandidate(c *lockkit.Client, name string, i int) *candidate {
	return &candidate{e: election.New(c, name), value: "owner " + strconv.Itoa(i)}
}

func (c *candidate) Name() string { return c.e.Name() }

func (c *candidate) Lock(ctx context.Context) error {
	l, err := c.e.Campaign(ctx, c.value)
	if err == nil {
		c.set(leadership{l})
	}
	return err
}

// TryLock campaigns for a short while: an election has no campaign that
// does not wait, and a vacant leadership is won at the first attempt.
func (c *candidate) TryLock(ctx context.Context) (bool, error) {
	cctx, cancel := context.WithTimeout(ctx, tryCampaign)
	defer cancel()
	err := c.Lock(cctx)
	if err != nil && errors.Is(err, lockkit.ErrNotObtained) && ctx.Err() == nil {
		return false, nil
	}
	return err == nil, err
}

// leadership is a won election as a hold: resigning releases it, the
// leader's term is its token and the end of its context its lost signal.
type leadership struct{ *election.Leadership }

func (l leadership) Release(ctx context.Context) error { return l.Resign(ctx) }
func (l leadership) Lost() <-chan struct{}             { return l.Context().Done() }
func (l leadership) Token() int64                      { return l.Leader().Term }
