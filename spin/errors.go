package spin

import "github.com/lockkit/lockkit/internal"

// Errors returned by this package. They are the same values in every lock
// package of this module, so errors.Is works across them.
var (
	// ErrNotObtained is returned by Lock when ctx ended before the lock was
	// acquired; the error also matches ctx.Err().
	ErrNotObtained = internal.ErrNotObtained
	// ErrNotHeld is returned by Unlock when this owner does not hold the lock.
	ErrNotHeld = internal.ErrNotHeld
	// ErrLost is returned by Unlock when this owner held the lock but the
	// hold is gone: its lease expired, the key vanished or it was
	// force-unlocked.
	ErrLost = internal.ErrLost
	// ErrInvalid is returned by every method of a Mutex built with invalid
	// arguments; nothing is sent to Redis.
	ErrInvalid = internal.ErrInvalid
)
