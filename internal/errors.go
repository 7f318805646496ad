package internal

import (
	"errors"
	"fmt"
)

// Sentinel errors shared by every lock package. Each package re-exports them
// under the same names, so errors.Is works whichever package returned them.
var (
	// ErrNotObtained is returned by Lock when the wait ended (its ctx was
	// cancelled or expired) before the lock was acquired. The error also
	// matches ctx.Err().
	ErrNotObtained = errors.New("lockkit: lock not obtained")

	// ErrNotHeld is returned by Unlock when this owner holds nothing on the
	// lock, as far as it knows: it never acquired it or already released it.
	ErrNotHeld = errors.New("lockkit: lock not held")

	// ErrLost is returned by Unlock (and reported through the lost signal)
	// when this owner did hold the lock but the hold is gone: the lease
	// expired, the key vanished (a Redis restart or failover) or someone
	// force-unlocked it.
	ErrLost = errors.New("lockkit: lock lost")

	// ErrInvalid is returned, before anything is sent to Redis, for invalid
	// input: an empty name, a nil client or an out-of-range option.
	ErrInvalid = errors.New("lockkit: invalid argument")
)

// Invalid returns an error matching ErrInvalid with the given explanation.
func Invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// NotObtained returns the error of a wait for lock name that ended because
// ctx ended: it matches both ErrNotObtained and cause (normally ctx.Err()).
func NotObtained(name string, cause error) error {
	return fmt.Errorf("%w: %q: %w", ErrNotObtained, name, cause)
}

// Lost returns an error matching ErrLost for lock name, with an optional
// cause (nil when the hold simply vanished).
func Lost(name string, cause error) error {
	if cause == nil {
		return fmt.Errorf("%w: %q", ErrLost, name)
	}
	return fmt.Errorf("%w: %q: %w", ErrLost, name, cause)
}

// NotHeld returns an error matching ErrNotHeld for lock name.
func NotHeld(name string) error {
	return fmt.Errorf("%w: %q", ErrNotHeld, name)
}

// Op wraps a Redis failure of operation op on lock name.
func Op(op, name string, err error) error {
	return fmt.Errorf("lockkit: %s %q: %w", op, name, err)
}
