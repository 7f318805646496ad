package rwlock

import (
	"errors"
	"fmt"

	"github.com/lockkit/lockkit/internal"
)

// Errors returned by this package. Except for ErrUpgrade they are the same
// values in every lock package of this module, so errors.Is works across
// them.
var (
	// ErrNotObtained is returned by Lock and RLock when ctx ended before the
	// lock was acquired; the error also matches ctx.Err().
	ErrNotObtained = internal.ErrNotObtained
	// ErrNotHeld is returned by Unlock (RUnlock) when this owner holds no
	// write (read) hold.
	ErrNotHeld = internal.ErrNotHeld
	// ErrLost is returned by Unlock (RUnlock) when this owner held the write
	// (read) lock but the hold is gone: its lease expired, the key vanished
	// or it was force-unlocked.
	ErrLost = internal.ErrLost
	// ErrInvalid is returned by every method of an RWMutex built with
	// invalid arguments; nothing is sent to Redis.
	ErrInvalid = internal.ErrInvalid

	// ErrUpgrade is returned at once by Lock and TryLock when the owner
	// holds the read lock but not the write lock. Waiting would deadlock:
	// the write lock waits for every reader to leave, this owner included.
	// Release the read lock first (RUnlock), then Lock, and check again
	// what was read, since another writer may have come in between.
	ErrUpgrade = errors.New("lockkit: read-to-write upgrade is not supported")
)

// upgradeError returns the error of Lock on lock name by a reader.
func upgradeError(name string) error {
	return fmt.Errorf("%w: %q: unlock the read lock before locking for writing", ErrUpgrade, name)
}
