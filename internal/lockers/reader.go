package lockers

import (
	"context"

	"github.com/lockkit/lockkit/rwlock"
)

// Reader is the read side of an rwlock as a lockkit.Locker with a hold:
// Lock read-locks, Unlock read-unlocks, and Lost and Token are the read
// hold's.
type Reader struct{ *rwlock.RWMutex }

// Lock takes the read lock (RLock).
func (r Reader) Lock(ctx context.Context) error { return r.RLock(ctx) }

// TryLock tries the read lock once (TryRLock).
func (r Reader) TryLock(ctx context.Context) (bool, error) { return r.TryRLock(ctx) }

// Unlock releases one read acquire (RUnlock).
func (r Reader) Unlock(ctx context.Context) error { return r.RUnlock(ctx) }

// Lost is the read hold's lost signal (RLost).
func (r Reader) Lost() <-chan struct{} { return r.RLost() }

// Token is the read hold's fencing token (RToken).
func (r Reader) Token() int64 { return r.RToken() }
