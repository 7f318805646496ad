package spin

import (
	"time"

	"github.com/lockkit/lockkit/internal"
)

// Default backoff between attempts of a waiting Lock (see [WithBackoff]).
const (
	// DefaultBackoffFloor bounds the first sleep.
	DefaultBackoffFloor = time.Millisecond
	// DefaultBackoffCap bounds every sleep.
	DefaultBackoffCap = 128 * time.Millisecond
)

// options are the settings of a Mutex: the shared ones plus the backoff.
type options struct {
	internal.Options
	floor, cap time.Duration // backoff bounds, 0 < floor <= cap
}

func defaultOptions() options {
	return options{Options: internal.DefaultOptions(), floor: DefaultBackoffFloor, cap: DefaultBackoffCap}
}

// Option configures a [Mutex].
type Option func(*options)

// WithBackoff sets how a waiting Lock spaces its attempts. After the n-th
// failed attempt (n = 0, 1, …) it sleeps for a random duration in
// [0, min(cap, floor·2ⁿ)) ("full jitter"), and never past the end of the
// holder's lease. A small floor finds a quickly released lock sooner; a
// larger cap sends fewer commands while a lock is held for long. The floor
// must be positive and at most cap.
// Default: floor 1 ms ([DefaultBackoffFloor]), cap 128 ms ([DefaultBackoffCap]).
func WithBackoff(floor, cap time.Duration) Option {
	return func(o *options) {
		if floor <= 0 || cap < floor {
			o.AddError(internal.Invalid("WithBackoff: need 0 < floor <= cap, got floor %v, cap %v", floor, cap))
			return
		}
		o.floor, o.cap = floor, cap
	}
}

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
// with the same name and owner id re-enter each other's holds. The id must
// not be empty or start with ':'.
func WithOwner(id string) Option {
	return func(o *options) { o.SetOwner(id) }
}

// WithPrefix sets the prefix of the lock's Redis keys. Default: "lockkit".
func WithPrefix(prefix string) Option {
	return func(o *options) { o.SetPrefix(prefix) }
}
