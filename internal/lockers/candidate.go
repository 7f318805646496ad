package lockers

import (
	"context"
	"errors"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
)

// TryCampaign bounds the Campaign that stands for a candidate's TryLock.
const TryCampaign = 100 * time.Millisecond

// Candidate is one candidate of an election as a lockkit.Locker: Lock
// campaigns, Unlock resigns; its hold is the last leadership won, whose
// term is its token and the end of whose context is its lost signal.
type Candidate struct {
	e     *election.Election
	value string
	lastHold
}

var _ lockkit.Locker = (*Candidate)(nil)

// NewCandidate returns a candidate of e that campaigns with value.
func NewCandidate(e *election.Election, value string) *Candidate {
	return &Candidate{e: e, value: value}
}

// Name returns the election's name.
func (c *Candidate) Name() string { return c.e.Name() }

// Value is the value the candidate campaigns with.
func (c *Candidate) Value() string { return c.value }

// Lock campaigns until the candidate leads (election.Election.Campaign).
func (c *Candidate) Lock(ctx context.Context) error {
	l, err := c.e.Campaign(ctx, c.value)
	if err == nil {
		c.set(leadership{l})
	}
	return err
}

// TryLock campaigns for at most TryCampaign: an election has no campaign
// that does not wait, and a vacant leadership is won at the first
// attempt.
func (c *Candidate) TryLock(ctx context.Context) (bool, error) {
	cctx, cancel := context.WithTimeout(ctx, TryCampaign)
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
