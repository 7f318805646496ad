package rwlock

import "context"

// Locker is the context-aware counterpart of [sync.Locker]: an RWMutex is a
// Locker for its write side, and [RWMutex.RLocker] returns one for its read
// side, so code that takes a Locker can be given either.
type Locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

var (
	_ Locker = (*RWMutex)(nil)
	_ Locker = (*rlocker)(nil)
)

// RLocker returns a Locker whose Lock and Unlock call m.RLock and m.RUnlock.
// It is a view of m, not another owner.
func (m *RWMutex) RLocker() Locker { return (*rlocker)(m) }

type rlocker RWMutex

func (r *rlocker) Lock(ctx context.Context) error   { return (*RWMutex)(r).RLock(ctx) }
func (r *rlocker) Unlock(ctx context.Context) error { return (*RWMutex)(r).RUnlock(ctx) }
