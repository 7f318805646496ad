package lockkit

import "github.com/lockkit/lockkit/internal/config"

// WithoutReentry makes a lock non-reentrant, as [sync.Mutex] is: a Lock
// by the owner that holds the lock already does not re-enter it but waits,
// like any other owner, until that hold is released (or its lease runs
// out) or until ctx ends, and a TryLock by it fails. The hold count is
// then never more than 1. Use it when one lock value is shared by
// goroutines that must exclude each other, or to turn an accidental
// recursive Lock into a wait that its ctx bounds instead of a silent
// re-entry.
//
// The owner is still the lock value (or the owner id): any goroutine may
// Unlock it, and a Lock on the value that waits for the value's own hold
// is woken by that Unlock (a spin lock's, which is never woken, tries
// again when its sleep ends). A goroutine that Locks twice without an Unlock
// in between waits until its ctx ends, as it would deadlock with
// sync.Mutex. With [WithOwner], the values that share an owner id, in one
// process or many, are one non-reentrant owner: while any of them holds
// the lock, a Lock by any of them waits and a TryLock fails, and any of
// them may Unlock the hold.
//
// It applies to reentrant, fair and spin locks, and as a Client default.
// Default: off (the owner re-enters its hold, and each Lock needs its
// Unlock).
func WithoutReentry() Option {
	return func(o *config.Options) {
		if !o.For("WithoutReentry", true, config.Reentrant, config.Fair, config.Spin) {
			return
		}
		o.NoReentry = true
	}
}
