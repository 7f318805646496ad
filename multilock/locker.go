package multilock

import "context"

// Locker is a lock a [MultiLock] can take: any exclusive lock of this
// module (reentrant.Mutex, fair.Mutex, spin.Mutex, the write side of
// rwlock.RWMutex, a [RedLock], or another MultiLock, which stands for its
// members) or a type of your own with the same contract.
//
// Name orders the locks of a MultiLock, so it must identify the lock: two
// Lockers for the same lock must return the same name, as every lock of this
// module does (its name is the one given to New).
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
