package faultmatrix_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
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

// permitHolder is one owner of a semaphore as a Locker: Lock acquires one
// permit, Unlock releases it; its hold is the last permit acquired.
type permitHolder struct {
	s *semaphore.Semaphore

	mu sync.Mutex
	p  *semaphore.Permits // the last hold; mu guards it
}

func (h *permitHolder) Name() string { return h.s.Name() }

func (h *permitHolder) set(p *semaphore.Permits) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.p = p
}

func (h *permitHolder) held() *semaphore.Permits {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.p
}

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

func (h *permitHolder) Unlock(ctx context.Context) error {
	p := h.held()
	if p == nil {
		return lockkit.ErrNotHeld
	}
	return p.Release(ctx)
}

func (h *permitHolder) Lost() <-chan struct{} {
	if p := h.held(); p != nil {
		return p.Lost()
	}
	return nil
}

func (h *permitHolder) Token() int64 {
	if p := h.held(); p != nil {
		return p.Token()
	}
	return 0
}

// candidate is one candidate of an election as a Locker: Lock campaigns,
// Unlock resigns; the leader's term is its token and the end of its
// leadership's context its lost signal.
type candidate struct {
	e     *election.Election
	value string

	mu sync.Mutex
	l  *election.Leadership // the last leadership won; mu guards it
}

func newCandidate(c *lockkit.Client, name string, i int) *candidate {
	return &candidate{e: election.New(c, name), value: "owner " + strconv.Itoa(i)}
}

func (c *candidate) Name() string { return c.e.Name() }

func (c *candidate) set(l *election.Leadership) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.l = l
}

func (c *candidate) leadership() *election.Leadership {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.l
}

func (c *candidate) Lock(ctx context.Context) error {
	l, err := c.e.Campaign(ctx, c.value)
	if err == nil {
		c.set(l)
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

func (c *candidate) Unlock(ctx context.Context) error {
	l := c.leadership()
	if l == nil {
		return lockkit.ErrNotHeld
	}
	return l.Resign(ctx)
}

func (c *candidate) Lost() <-chan struct{} {
	if l := c.leadership(); l != nil {
		return l.Context().Done()
	}
	return nil
}

func (c *candidate) Token() int64 {
	if l := c.leadership(); l != nil {
		return l.Leader().Term
	}
	return 0
}
