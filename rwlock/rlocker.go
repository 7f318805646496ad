package rwlock

import (
	"context"

	"github.com/lockkit/lockkit"
)

// RLocker returns a [lockkit.Locker] whose Lock, TryLock and Unlock call
// m.RLock, m.TryRLock and m.RUnlock, so code that takes a Locker can be
// given the read side. It is a view of m, not another owner, and reports
// m's name.
func (m *RWMutex) RLocker() lockkit.Locker { return (*rlocker)(m) }

type rlocker RWMutex

var _ lockkit.Locker = (*rlocker)(nil)

func (r *rlocker) Lock(ctx context.Context) error            { return (*RWMutex)(r).RLock(ctx) }
func (r *rlocker) TryLock(ctx context.Context) (bool, error) { return (*RWMutex)(r).TryRLock(ctx) }
func (r *rlocker) Unlock(ctx context.Context) error          { return (*RWMutex)(r).RUnlock(ctx) }
func (r *rlocker) Name() string                              { return (*RWMutex)(r).Name() }
