package multilock

import (
	"errors"

	"github.com/lockkit/lockkit/internal"
)

// Errors returned by this package. All but ErrQuorum are the same values in
// every lock package of this module, so errors.Is works across them.
var (
	// ErrNotObtained is returned by Lock when ctx ended before every lock
	// (or a quorum of nodes) was acquired; the error also matches ctx.Err().
	ErrNotObtained = internal.ErrNotObtained
	// ErrNotHeld is returned by Unlock when this owner does not hold the lock.
	ErrNotHeld = internal.ErrNotHeld
	// ErrLost is returned by Unlock when this owner held the lock but the
	// hold is gone; for a RedLock, when fewer than a quorum of nodes still
	// held it.
	ErrLost = internal.ErrLost
	// ErrInvalid is returned by every method of a MultiLock or RedLock built
	// with invalid arguments; nothing is sent to Redis.
	ErrInvalid = internal.ErrInvalid

	// ErrQuorum is returned by RedLock.TryLock, and joined to the error of
	// RedLock.Lock when ctx ended, when fewer than a quorum (N/2+1) of its N
	// nodes answered: too many are down or unreachable for the lock to be
	// taken at all. The message says how many answered and why the first
	// failing node failed.
	ErrQuorum = errors.New("lockkit: quorum not reached")
)
