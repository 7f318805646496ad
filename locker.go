package lockkit

import "context"

// Locker is an exclusive lock: every lock kind of this module is one
// (reentrant.Mutex, fair.Mutex, spin.Mutex, the write side of
// rwlock.RWMutex, multilock.Mutex and multilock.RedLock), and so is a type
// of your own with the same contract. A multilock takes any Lockers.
//
// Name must identify the lock: two Lockers for the same lock return the
// same name, as every lock of this module does (the name given to New).
type Locker interface {
	// Lock blocks until the lock is held or ctx ends.
	Lock(ctx context.Context) error
	// TryLock tries once, without waiting, and reports whether it succeeded.
	TryLock(ctx context.Context) (bool, error)
	// Unlock undoes one successful Lock or TryLock.
	Unlock(ctx context.Context) error
	// Name returns the lock's name.
	Name() string
}
