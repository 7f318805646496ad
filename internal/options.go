package internal

import (
	"reflect"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultWatchdogTimeout is the lease of a lock kept alive by the watchdog.
const DefaultWatchdogTimeout = 30 * time.Second

// Options are the settings every lock kind shares. The lock packages wrap
// them in their own functional options.
type Options struct {
	// Lease is the fixed lease set by WithLease; zero means the watchdog
	// keeps the lock alive with WatchdogTimeout leases.
	Lease time.Duration
	// WatchdogTimeout is the lease renewed by the watchdog.
	WatchdogTimeout time.Duration
	// Owner is the owner id; empty means a fresh one from NewOwner.
	Owner string
	// OwnOwner is set by Validate when it chose a fresh owner id: then no
	// other lock value holds under it, so a hold found under it that the
	// value does not know of can only be the value's own.
	OwnOwner bool
	// Prefix starts every key of the lock.
	Prefix string

	errs []error // invalid values, reported by Validate
}

// DefaultOptions returns the shared defaults.
func DefaultOptions() Options {
	return Options{WatchdogTimeout: DefaultWatchdogTimeout, Prefix: DefaultPrefix}
}

// SetLease sets a fixed lease (no watchdog).
func (o *Options) SetLease(d time.Duration) {
	if d <= 0 {
		o.errs = append(o.errs, Invalid("WithLease: lease must be positive, got %v", d))
		return
	}
	o.Lease = d
}

// SetWatchdogTimeout sets the lease renewed by the watchdog.
func (o *Options) SetWatchdogTimeout(d time.Duration) {
	if d < 3*time.Millisecond {
		o.errs = append(o.errs, Invalid("WithWatchdogTimeout: timeout must be at least 3ms, got %v", d))
		return
	}
	o.WatchdogTimeout = d
}

// SetOwner sets a caller-chosen owner id.
func (o *Options) SetOwner(id string) {
	switch {
	case id == "":
		o.errs = append(o.errs, Invalid("WithOwner: owner id must not be empty"))
	case strings.HasPrefix(id, ":"):
		o.errs = append(o.errs, Invalid("WithOwner: owner id %q must not start with ':' (reserved)", id))
	default:
		o.Owner = id
	}
}

// SetPrefix sets the key prefix.
func (o *Options) SetPrefix(p string) {
	if p == "" || strings.ContainsAny(p, "{}") {
		o.errs = append(o.errs, Invalid("WithPrefix: prefix %q must be non-empty and free of '{' and '}'", p))
		return
	}
	o.Prefix = p
}

// AddError records an invalid option value for Validate to report.
func (o *Options) AddError(err error) { o.errs = append(o.errs, err) }

// TTL returns the lease a hold gets when it is taken: the fixed lease, or
// the watchdog timeout.
func (o *Options) TTL() time.Duration {
	if o.Lease > 0 {
		return o.Lease
	}
	return o.WatchdogTimeout
}

// Watched reports whether the watchdog keeps holds alive.
func (o *Options) Watched() bool { return o.Lease == 0 }

// Validate checks the lock's client and name and reports the first invalid
// option, and fills in an owner id if none was set.
func (o *Options) Validate(client redis.UniversalClient, name string) error {
	if IsNil(client) {
		return Invalid("client must not be nil")
	}
	if name == "" {
		return Invalid("lock name must not be empty")
	}
	if len(o.errs) > 0 {
		return o.errs[0]
	}
	if o.Owner == "" {
		o.Owner = NewOwner()
		o.OwnOwner = true
	}
	return nil
}

// IsNil reports whether v is nil or a nil pointer in an interface, such as
// a typed nil client or lock.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
