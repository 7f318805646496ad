package redistest

import (
	"context"
)

// Locker is what the helpers of this package need of a lock. Every lock of
// the module is one, and so is the read side of a read-write lock seen
// through its RLocker.
type Locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

// NamedLocker is a [Locker] that reports its lock's name, for failure
// messages.
type NamedLocker interface {
	Locker
	Name() string
}

// TokenLocker is a [Locker] whose holds carry a fencing token: a number
// that grows with every new hold of the lock and is 0 while it holds
// nothing.
type TokenLocker interface {
	Locker
	Token() int64
}
