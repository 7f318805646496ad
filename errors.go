package lockkit

import "errors"

// The errors of every lock kind in this module. Kinds return these values,
// wrapped with the operation and the lock name, so test them with
// [errors.Is].
var (
	// ErrNotObtained is returned by Lock (and RLock, Acquire…) when the
	// wait ended before the lock was held: its ctx was cancelled or its
	// deadline passed. A latch's Await returns it when its ctx ends before
	// the latch opened. The error then also matches ctx.Err(). A RedLock
	// returns it too when a majority granted the lock too late for any
	// validity time to be left.
	ErrNotObtained = errors.New("lockkit: lock not obtained")

	// ErrNotHeld is returned by Unlock (and RUnlock) when this owner holds
	// nothing on the lock, as far as it knows: it never acquired it or
	// already released it.
	ErrNotHeld = errors.New("lockkit: lock not held")

	// ErrLost is returned by Unlock when this owner did hold the lock but
	// the hold is gone: the lease ran out, the key vanished (a Redis
	// restart or failover), someone force-unlocked it, or the Client was
	// closed. The same error is reported by the hold's lost signal.
	ErrLost = errors.New("lockkit: lock lost")

	// ErrInvalid is returned, before anything is sent to Redis, for invalid
	// input: a nil or closed-over client, an empty name, a nil Option or an
	// out-of-range option value. The message names the problem.
	ErrInvalid = errors.New("lockkit: invalid argument")

	// ErrQuorum is returned by a RedLock when fewer than a majority of its
	// nodes answered, or took the hold's fencing token.
	ErrQuorum = errors.New("lockkit: no quorum")

	// ErrUpgrade is returned by an rwlock's Lock when its owner holds the
	// read lock but not the write lock: a read-to-write upgrade would wait
	// for itself forever.
	ErrUpgrade = errors.New("lockkit: read-to-write upgrade")

	// ErrClosed is returned by every call on a lock whose Client was
	// closed; holds open at Close are reported lost with it.
	ErrClosed = errors.New("lockkit: client closed")

	// ErrWrongKind is returned when a lock's name is held, in Redis, by a
	// lock of another kind (a reentrant lock and a read-write lock of the
	// same name, say). Nothing is changed.
	ErrWrongKind = errors.New("lockkit: name used by another lock kind")

	// ErrReplicaAck is returned by Lock, TryLock (and RLock, TryRLock) of
	// a lock with [WithReplicaAck] when fewer replicas than asked
	// acknowledged a fresh hold in time; the message says how many did.
	// The hold was undone: the lock is not held.
	ErrReplicaAck = errors.New("lockkit: too few replicas acknowledged the lock")
)
