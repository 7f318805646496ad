package lockers

import (
	"context"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/semaphore"
)

// Permits is one owner of a semaphore as a lockkit.Locker: Lock acquires
// N permits at once, Unlock releases them; its hold is the last one
// acquired.
type Permits struct {
	s *semaphore.Semaphore
	n int
	lastHold
}

var _ lockkit.Locker = (*Permits)(nil)

// NewPermits returns an owner of s whose Lock acquires n permits.
func NewPermits(s *semaphore.Semaphore, n int) *Permits { return &Permits{s: s, n: n} }

// Name returns the semaphore's name.
func (p *Permits) Name() string { return p.s.Name() }

// Lock acquires the permits (semaphore.Semaphore.Acquire).
func (p *Permits) Lock(ctx context.Context) error {
	h, err := p.s.Acquire(ctx, p.n)
	if err == nil {
		p.set(h)
	}
	return err
}

// TryLock acquires the permits if they are free now
// (semaphore.Semaphore.TryAcquire).
func (p *Permits) TryLock(ctx context.Context) (bool, error) {
	h, err := p.s.TryAcquire(ctx, p.n)
	if h == nil {
		return false, err
	}
	p.set(h)
	return true, nil
}
