package reentrant

import (
	"time"

	"github.com/lockkit/lockkit/internal"
)

// Option configures a [Mutex].
type Option func(*internal.Options)

// WithLease gives every hold a fixed lease d: the watchdog does not renew
// it and the lock frees itself d after it was taken, even if Unlock is
// never called. Use it when a holder must never keep the lock longer than d.
// Default: no fixed lease; the watchdog keeps the lock until Unlock.
func WithLease(d time.Duration) Option {
	return func(o *internal.Options) { o.SetLease(d) }
}

// WithWatchdogTimeout sets the lease the watchdog keeps renewing, every d/3.
// A crashed holder frees the lock within d. Default: 30 s.
func WithWatchdogTimeout(d time.Duration) Option {
	return func(o *internal.Options) { o.SetWatchdogTimeout(d) }
}

// WithOwner sets the owner id instead of a fresh one unique to this value,
// for ownership that spans values or processes (a job id, say). Mutexes
// with the same name and owner id re-enter each other's holds. The id must
// not be empty or start with ':'.
func WithOwner(id string) Option {
	return func(o *internal.Options) { o.SetOwner(id) }
}

// WithPrefix sets the prefix of the lock's Redis keys. Default: "lockkit".
func WithPrefix(prefix string) Option {
	return func(o *internal.Options) { o.SetPrefix(prefix) }
}
