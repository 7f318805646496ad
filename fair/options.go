package fair

import (
	"time"

	"github.com/lockkit/lockkit/internal"
)

// DefaultWaiterTimeout is how long a waiter's place in the queue outlives
// its last sign of life unless [WithWaiterTimeout] says otherwise.
const DefaultWaiterTimeout = 5 * time.Second

// minWaiterTimeout keeps the heartbeat, every third of the waiter timeout,
// at one millisecond or more.
const minWaiterTimeout = 3 * time.Millisecond

// options are the settings of a Mutex: the ones every lock shares, plus the
// waiter timeout.
type options struct {
	internal.Options
	waiterTimeout time.Duration
}

// Option configures a [Mutex].
type Option func(*options)

// WithLease gives every hold a fixed lease d: the watchdog does not renew
// it and the lock frees itself d after it was taken, even if Unlock is
// never called. Use it when a holder must never keep the lock longer than d.
// Default: no fixed lease; the watchdog keeps the lock until Unlock.
func WithLease(d time.Duration) Option {
	return func(o *options) { o.SetLease(d) }
}

// WithWatchdogTimeout sets the lease the watchdog keeps renewing, every d/3.
// A crashed holder frees the lock within d. Default: 30 s.
func WithWatchdogTimeout(d time.Duration) Option {
	return func(o *options) { o.SetWatchdogTimeout(d) }
}

// WithOwner sets the owner id instead of a fresh one unique to this value,
// for ownership that spans values or processes (a job id, say). Mutexes
// with the same name and owner id re-enter each other's holds and share one
// place in the queue. The id must not be empty or start with ':'.
func WithOwner(id string) Option {
	return func(o *options) { o.SetOwner(id) }
}

// WithPrefix sets the prefix of the lock's Redis keys. Default: "lockkit".
func WithPrefix(prefix string) Option {
	return func(o *options) { o.SetPrefix(prefix) }
}

// WithWaiterTimeout sets how long a waiter's place in the queue survives
// without a sign of life. A waiting Lock renews its place every d/3, so
// only a waiter whose process died (or stalled for longer than d) loses
// it; the waiters behind a dead one move up at most d after it died. A
// shorter d hands the lock on sooner after a crash; a longer one tolerates
// longer pauses (GC, network trouble) without dropping live waiters to the
// back. It must be at least 3 ms. Default: 5 s ([DefaultWaiterTimeout]).
func WithWaiterTimeout(d time.Duration) Option {
	return func(o *options) {
		if d < minWaiterTimeout {
			o.AddError(internal.Invalid("WithWaiterTimeout: timeout must be at least %v, got %v", minWaiterTimeout, d))
			return
		}
		o.waiterTimeout = d
	}
}
